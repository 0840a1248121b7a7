import { expect } from 'chai';
import { isNavigableFlowUrl } from '../../widget/checkout/bank-page.ts';

describe('isNavigableFlowUrl: where the element agrees to send a customer', () => {
  const proxy = 'https://shop.example';
  const cases: Array<[url: string, proxy: string, allowed: boolean]> = [
    ['https://bank.example/flow/1', proxy, true],
    ['http://127.0.0.1:4000/pay/flow/1', proxy, true],
    ['http://localhost:4000/pay/flow/1', proxy, true],
    ['http://[::1]:4000/pay/flow/1', proxy, true],
    ['http://shop.example:4000/pay/flow/1', 'http://shop.example:8787', true],
    ['http://bank.example/flow/1', proxy, false],
    ['http://shop.example.evil.example/flow', 'http://shop.example', false],
    ['javascript:alert(1)', proxy, false],
    ['data:text/html,<h1>bank</h1>', proxy, false],
    ['ftp://bank.example/flow', proxy, false],
    ['https://user:secret@bank.example/flow', proxy, false],
    ['/relative/flow', proxy, false],
    ['not a url', proxy, false],
  ];
  for (const [url, proxyOrigin, allowed] of cases) {
    it(`${allowed ? 'allows' : 'refuses'} ${url} (proxy ${proxyOrigin})`, () => {
      expect(isNavigableFlowUrl(url, proxyOrigin)).to.equal(allowed);
    });
  }
});
