/**
 * Reads HTTP/1.1 responses off a keep-alive socket as they arrive: the status of each, once its body
 * (Content-Length or chunked) is complete. A load client built on it spends far less time per request
 * than Node's HTTP client, so that what a benchmark measures is the server, not the client.
 */
export class ResponseReader {
  private buffer: Buffer = Buffer.alloc(0);

  constructor(private readonly onResponse: (status: number) => void) {}

  /** Feeds bytes from the socket; calls `onResponse` for every response they complete. */
  push(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      const end = this.complete();
      if (end === undefined) return;
      const status = Number(this.buffer.toString('latin1', 9, 12));
      this.buffer = this.buffer.subarray(end);
      this.onResponse(status);
    }
  }

  /** Where the first buffered response ends, once all of it is here. */
  private complete(): number | undefined {
    const headEnd = this.buffer.indexOf('\r\n\r\n');
    if (headEnd < 0) return undefined;
    const head = this.buffer.toString('latin1', 0, headEnd).toLowerCase();
    const length = /\r\ncontent-length: *(\d+)/.exec(head);
    if (length) {
      const end = headEnd + 4 + Number(length[1]);
      return this.buffer.length >= end ? end : undefined;
    }
    if (!/\r\ntransfer-encoding: *chunked/.test(head))
      throw new Error(`a response with neither Content-Length nor chunked encoding: ${head.split('\r\n')[0]}`);
    // Chunks: size in hex, CRLF, data, CRLF; a zero size (and an empty trailer) ends the body.
    let at = headEnd + 4;
    for (;;) {
      const lineEnd = this.buffer.indexOf('\r\n', at);
      if (lineEnd < 0) return undefined;
      const size = Number.parseInt(this.buffer.toString('latin1', at, lineEnd), 16);
      if (size === 0) {
        const end = lineEnd + 4;
        return this.buffer.length >= end ? end : undefined;
      }
      at = lineEnd + 2 + size + 2;
      if (this.buffer.length < at) return undefined;
    }
  }
}
