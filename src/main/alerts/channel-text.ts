/** An alert's title and sentence carry text from the outside (an event's type, id and data id, a
 * source's name): each channel shows it as text, never as markup the sender chose. Slack reads
 * `<…>` as links and mentions (`<!channel>`, `<@U…>`, `<https://evil|Open in watchdesk>`), so its
 * three control characters are escaped as Slack documents; an email is plain text, its subject
 * one line (a CR/LF there would start a header of the sender's), its fields quoted. Webhook
 * channels send JSON, which needs nothing more. docs/alerts.md, "What a channel shows". */

/** `&`, `<`, `>` as `&amp;`, `&lt;`, `&gt;`: Slack then shows them and links nothing. */
export function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** Controls (CR, LF, ESC, C1) and the invisible characters that reorder text (bidi). */
const controlClass =
  '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069'
const controls = new RegExp(`[${controlClass}]`, 'g')

/** One line of plain text: each control character written as `\u000d`, so a subject stays one
 * header and a body line cannot be split into a fake one. */
export function plainLine(text: string): string {
  return text.replace(controls, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** A field in an email body: quoted (where it starts and ends is visible), one line. */
export function quoted(text: string): string {
  return plainLine(JSON.stringify(text))
}
