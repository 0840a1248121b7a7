/**
 * Saves a file the worker read (an export) through a link to it in `root`: no downloads permission
 * needed, and the address is let go a minute later.
 */
export function saveFile(root: ParentNode, file: { filename: string; text: string; type: string }): void {
  const url = URL.createObjectURL(new Blob([file.text], { type: file.type }));
  const link = Object.assign(document.createElement('a'), { href: url, download: file.filename, hidden: true });
  root.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
