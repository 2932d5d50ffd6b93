// The link form's URLs, as a person types them and as the API takes them: the destination, the
// expired URL, a rule's URL, and the URL the UTM fields write into.

/** `shop.example/summer` means `https://shop.example/summer`; a text that names a scheme keeps it (and the check or the API refuses it). */
export const withScheme = (text: string) => {
  const t = text.trim()
  return t === '' || /^[a-z][a-z0-9+.-]*:\/\//i.test(t) || /^(javascript|data|file|mailto|tel|ftp|about|blob|vbscript):/i.test(t) ? t : `https://${t}`
}

/** The API's rule for a destination, said in its words (docs/api/links.md). */
export const checkUrl = (name: string) => (text: string) => {
  const t = withScheme(text)
  if (t === '') return undefined
  try {
    const url = new URL(t)
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '') return undefined
  } catch {
    // not a URL: said below
  }
  return `${name} must be an absolute http or https URL with a host`
}
