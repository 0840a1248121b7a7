/**
 * The Cache-Control of what a browser reads about a payment (its status and status stream, the
 * checkout, a hand-off code): kept out of shared caches and read afresh each time, but not
 * `no-store`, which keeps the shop's whole page out of the browser's back/forward cache (Chrome's
 * JsNetworkRequestReceivedCacheControlNoStoreResource): the customer back from the bank would get a
 * full reload instead of the page as they left it.
 */
export const PRIVATE_READ = 'private, no-cache';
