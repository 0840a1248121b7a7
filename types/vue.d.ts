/**
 * `import type {} from 'kassa/vue'`: <kassa-checkout>, <kassa-bridge> and <kassa-onramp> type-check in Vue templates
 * (with `compilerOptions.isCustomElement: (tag) => tag.startsWith('kassa-')`), their events as
 * `@kassa-completed="…"`.
 */
import type { DefineComponent } from 'vue';
import type {
  KassaBridgeAttributes,
  KassaBridgeEvents,
  KassaCheckoutAttributes,
  KassaCheckoutEvents,
  KassaOnrampAttributes,
  KassaOnrampEvents,
} from './elements.js';

type Kebab<Name extends string> = Name extends `${infer Head}-${infer Tail}`
  ? `${Capitalize<Head>}${Kebab<Tail>}`
  : Capitalize<Name>;
/** Vue's name for a listener of `kassa-completed` is `onKassaCompleted`. */
type VueListeners<Events> = { [Name in keyof Events & string as `on${Kebab<Name>}`]?: (event: Events[Name]) => void };

declare module 'vue' {
  interface GlobalComponents {
    'kassa-checkout': DefineComponent<KassaCheckoutAttributes & VueListeners<KassaCheckoutEvents>>;
    'kassa-bridge': DefineComponent<KassaBridgeAttributes & VueListeners<KassaBridgeEvents>>;
    'kassa-onramp': DefineComponent<KassaOnrampAttributes & VueListeners<KassaOnrampEvents>>;
  }
}
