/**
 * The Cache-Control of what a browser reads about a payment (its status and status stream, the
 * checkout, a hand-off code): kept out of shared caches and read afresh each time, but not
 * `no-store`. Chrome lets a page that was itself sent with `no-store` (many shops send their checkout
 * so) into its back/forward cache only if none of its scripts has read a `no-store` answer
 * (JsNetworkRequestReceivedCacheControlNoStoreResource): the customer back from the bank would get a
 * full reload instead of the page as they left it.
 */
export const PRIVATE_READ = 'private, no-cache';
