import jsQR from 'jsqr';
import type { BrowserContext, Page } from 'playwright';

const SIZE = 400;

/**
 * Reads the QR code an element shows (the checkout's, unless `selector` says which), as a phone's
 * camera would (decodeQrImage).
 */
export async function scanQr(
  page: Page,
  context: BrowserContext,
  selector = 'kassa-checkout [part~="qr"]',
): Promise<string> {
  const svg = await page.locator(selector).evaluate((element) => element.outerHTML);
  return decodeQrImage(
    context,
    `data:image/svg+xml,${encodeURIComponent(
      svg.replace('<svg', `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}"`),
    )}`,
  );
}

/**
 * Reads the QR code of an image (`src`, a data: URL), as a phone's camera would: drawn onto a canvas
 * in a blank page of the same browser, and the pixels decoded by jsQR here in the test.
 */
export async function decodeQrImage(context: BrowserContext, src: string): Promise<string> {
  const raster = await context.newPage();
  try {
    const pixels = await raster.evaluate(
      async ([source, size]) => {
        const image = new Image(size, size);
        image.src = source;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = canvas.height = size;
        const context2d = canvas.getContext('2d')!;
        context2d.fillStyle = '#808080';
        context2d.fillRect(0, 0, size, size);
        context2d.drawImage(image, 0, 0, size, size);
        // As base64: a plain array of 640,000 numbers takes seconds to cross over to the test.
        const bytes = context2d.getImageData(0, 0, size, size).data;
        let binary = '';
        for (let at = 0; at < bytes.length; at += 0x8000)
          binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
        return btoa(binary);
      },
      [src, SIZE] as const,
    );
    const decoded = jsQR(new Uint8ClampedArray(Buffer.from(pixels, 'base64')), SIZE, SIZE);
    if (!decoded) throw new Error('the QR code could not be decoded');
    return decoded.data;
  } finally {
    await raster.close();
  }
}
