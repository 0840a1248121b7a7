/** The steps of something under way (a transfer, a purchase), each with its state, and how they look. */
import { css, html, nothing, type TemplateResult } from 'lit';

export type StepState = 'done' | 'current' | 'pending' | 'failed';

/** Each step state in words, for screen readers. */
export interface StepMessages {
  stepDone: string;
  stepCurrent: string;
  stepPending: string;
  stepFailed: string;
}

/** The steps in order, each with its state in words for screen readers. */
export function stepsView(steps: Array<[label: string, state: StepState]>, m: StepMessages): TemplateResult {
  const words: Record<StepState, string> = {
    done: m.stepDone,
    current: m.stepCurrent,
    pending: m.stepPending,
    failed: m.stepFailed,
  };
  return html`<ol part="steps" class="steps">
    ${steps.map(
      ([label, state]) =>
        html`<li class=${state} data-state=${state} aria-current=${state === 'current' ? 'step' : nothing}>
          <span class="mark" aria-hidden="true"></span
          ><span>${label}<span class="visually-hidden">: ${words[state]}</span></span>
        </li>`,
    )}
  </ol>`;
}

/** The steps list: a mark per step (filled when done, turning while current), and text only screen readers read. */
export const stepStyles = css`
  .steps {
    list-style: none;
    margin: 0;
    padding: 0;
    display: grid;
    gap: 0.4em;
  }
  .steps li {
    display: flex;
    align-items: center;
    gap: 0.6em;
  }
  .mark {
    inline-size: 1em;
    block-size: 1em;
    flex: none;
    box-sizing: border-box;
    border-radius: 50%;
    border: 2px solid var(--_muted);
  }
  .done .mark {
    background: var(--_success);
    border-color: var(--_success);
  }
  .failed .mark {
    background: var(--_danger);
    border-color: var(--_danger);
  }
  .current .mark {
    border-color: var(--_primary);
    border-inline-end-color: transparent;
    animation: spin 0.8s linear infinite;
  }
  .pending {
    color: var(--_muted);
  }
  .visually-hidden {
    position: absolute;
    inline-size: 1px;
    block-size: 1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
  }
  @media (prefers-reduced-motion: reduce) {
    .current .mark {
      animation-duration: 2.4s;
    }
  }
`;
