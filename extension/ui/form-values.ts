/**
 * The named fields of a form, as text. Kassa's forms have no file inputs: a field that is missing, or
 * holds a file, reads as '' (never as "[object File]").
 */
export function formValues<const Name extends string>(
  form: HTMLFormElement,
  names: readonly Name[],
): Record<Name, string> {
  const data = new FormData(form);
  return Object.fromEntries(
    names.map((name) => {
      const value = data.get(name);
      return [name, typeof value === 'string' ? value : ''];
    }),
  ) as Record<Name, string>;
}
