/** The one Content-Security-Policy of the renderer: sent as a header by serve mode
 * (transport/static.ts) and by the desktop shell (every response of its session), and written into
 * index.html's meta tag at build time (electron.vite.config.ts). Only what the page's own files need. */
export const contentSecurityPolicy =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/** A meta tag cannot carry frame-ancestors (browsers ignore it there and warn). */
export const metaContentSecurityPolicy = contentSecurityPolicy.replace(/;\s*frame-ancestors[^;]*/, '')
