import { formatDateTime as formatPoint } from '../../../../shared/time'

/** An event's time: the one format (src/shared/time.ts) with milliseconds, since order within a
 * second matters here; fixed width so columns never jiggle. */
export const formatDateTime = (ms: number) => formatPoint(ms, { millis: true })

export const formatCount = (n: number) => n.toLocaleString('en-US')

export function prettyBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2)
  } catch {
    return body
  }
}
