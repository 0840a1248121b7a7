/**
 * The sign-in page's stylesheet: Kassa's elements' design tokens (lib/palette.ts), light or dark as
 * the system prefers, with the same surface, buttons and fields as `<kassa-checkout>`.
 */
import { DARK_PALETTE, FONT_STACK, LIGHT_PALETTE, RADIUS, SPACING, type Palette } from '../../../lib/palette.ts';

const palette = (colors: Palette) =>
  Object.entries(colors)
    .map(([name, value]) => `--_${name}:var(--kassa-color-${name},${value});`)
    .join('');

export const PAGE_STYLE = `:root{${palette(LIGHT_PALETTE)}color-scheme:light;--_font:${FONT_STACK};--_radius:${RADIUS};--_space:${SPACING}}
@media (prefers-color-scheme:dark){:root{${palette(DARK_PALETTE)}color-scheme:dark}}
*{box-sizing:border-box}
body{margin:0;font:1rem/1.5 var(--_font);color:var(--_text);background:var(--_background)}
header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;max-width:48rem;margin:0 auto;padding:var(--_space)}
header .brand{font-weight:700;font-size:1.1rem;margin:0}
nav ul{display:flex;flex-wrap:wrap;gap:.25rem .75rem;list-style:none;margin:0;padding:0}
a{color:var(--_primary)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid var(--_focus);outline-offset:2px}
nav a[aria-current=true]{color:var(--_text);font-weight:600;text-decoration:none}
main{max-width:48rem;margin:0 auto;padding:0 var(--_space) 3rem;display:grid;gap:var(--_space)}
.surface{background:var(--_background);border:1px solid var(--_border);border-radius:var(--_radius);padding:var(--_space)}
h1{font-size:1.5rem;margin:0 0 .5rem}
h2{font-size:1.15rem;margin:0 0 .5rem}
p{margin:0 0 .75rem}
.muted,.hint{color:var(--_muted)}
.hint{font-size:.875rem;margin:0}
button{min-height:2.75rem;display:inline-flex;align-items:center;justify-content:center;gap:.5em;font:inherit;font-weight:600;padding:.6em 1.2em;border:1px solid transparent;border-radius:calc(var(--_radius)*.67);background:var(--_primary);color:var(--_on-primary);cursor:pointer}
button:hover{filter:brightness(1.08)}
button.secondary{background:transparent;color:var(--_primary);border-color:var(--_border)}
button.small{min-height:2.25rem;padding:.25em .8em}
button[aria-disabled=true]{cursor:progress;filter:saturate(.6)}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
form.fields{display:grid;gap:.75rem;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr));align-items:end}
.field{display:grid;gap:.25rem}
label{font-size:.875rem;font-weight:600}
input,select{min-height:2.5rem;font:inherit;color:var(--_text);background:var(--_background);border:1px solid var(--_muted);border-radius:calc(var(--_radius)*.5);padding:.4em .6em;width:100%}
.code{font:700 1.75rem/1.2 ui-monospace,monospace;letter-spacing:.12em}
.secret{font-family:ui-monospace,monospace;word-break:break-all}
table{width:100%;border-collapse:collapse;font-size:.9rem}
th,td{text-align:start;padding:.4rem .5rem .4rem 0;border-bottom:1px solid var(--_border);vertical-align:top}
th{font-weight:600;color:var(--_muted)}
.scroll{overflow-x:auto}
.badge{display:inline-block;font-size:.75em;font-weight:600;padding:.1em .6em;border-radius:999px;background:var(--_badge-background);color:var(--_badge-text)}
.status{min-height:1.5em;margin:.5rem 0 0}
.status:empty{min-height:0;margin:0}
.danger{color:var(--_danger)}.success{color:var(--_success);font-weight:600}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0 0 1rem}dt{color:var(--_muted)}dd{margin:0;overflow-wrap:anywhere}
button.large{min-height:3.5rem;font-size:1.25rem;padding:.6em 1.6em}
.counter-form{display:grid;gap:.75rem}
.counter-amount-field{font-size:2rem;min-height:3.5rem;font-variant-numeric:tabular-nums}
.counter-payment{display:grid;gap:.5rem;text-align:center}
.counter-amount{font-size:clamp(2rem,8vw,3.5rem);font-weight:700;line-height:1.2;margin:0;font-variant-numeric:tabular-nums}
.counter-note{font-size:1.25rem;min-height:1.9rem;margin:0;overflow-wrap:anywhere}
.counter-stage{justify-self:center;width:min(100%,20rem);aspect-ratio:1;display:grid;place-items:center;border:2px solid transparent;border-radius:var(--_radius)}
.counter-stage img{display:block;width:100%;height:100%}
.counter-mark{display:none;margin:0;padding:.5rem;font-size:clamp(2.5rem,10vw,4.5rem);font-weight:800;line-height:1.1;white-space:pre-line;overflow-wrap:anywhere}
[data-state=paid] .counter-stage{background:var(--_success);color:var(--_background)}
[data-state=failed] .counter-stage{background:var(--_danger);color:var(--_background)}
[data-state=cancelled] .counter-stage,[data-state=expired] .counter-stage{border:2px dashed var(--_border)}
[data-state=paid] img,[data-state=failed] img,[data-state=cancelled] img,[data-state=expired] img{display:none}
[data-state=paid] .counter-mark,[data-state=failed] .counter-mark{display:block}
.counter-state{font-size:1.25rem;font-weight:600;min-height:3.75rem;margin:0}
.counter-actions{justify-content:center;min-height:3.5rem}
.counter-who{margin:0 0 .75rem}
[hidden]{display:none!important}
.visually-hidden{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}`;
