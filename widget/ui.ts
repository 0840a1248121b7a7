/**
 * The widget's UI pieces that other Kassa front ends reuse (the extension's popup, side panel and
 * approval window), so that a transfer previews, and a page looks, the same everywhere. This is the
 * one module outside the widget may import; the widget's internals can move freely behind it.
 */
export { controls, tokens } from './shared/theme.ts';
export { formatMoney } from '../lib/format-money.ts';
export { previewStyles } from './bridge/styles.ts';
export { previewView } from './bridge/views.ts';
export { significant } from './bridge/history-views.ts';
export { default as bridgeMessagesEn } from './bridge/messages/en.ts';
export type { BridgeMessages } from './bridge/messages/en.ts';
export { bridgeMessages } from './bridge/messages/all.ts';
export { fill, languageOf } from './shared/i18n.ts';
