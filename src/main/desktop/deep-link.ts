import { deepLinkScheme, hashOfDeepLink, linkHash, parseLinkHash } from '../../shared/links'

/** The route a `watchdesk://open/#/events/evt_…` link asks for, rebuilt from its parsed target so
 * that only the shapes the console knows reach the window (anything else opens the Overview). */
export function deepLinkRoute(url: string): string | null {
  const hash = hashOfDeepLink(url)
  return hash === null ? null : linkHash(parseLinkHash(hash))
}

/** A second launch hands its arguments to the running instance: the deep link among them, if any
 * (Windows and Linux pass the URL as an argument; macOS sends `open-url` instead). */
export function deepLinkInArgv(argv: readonly string[]): string | null {
  const url = argv.find((a) => a.startsWith(`${deepLinkScheme}://`))
  return url ? deepLinkRoute(url) : null
}
