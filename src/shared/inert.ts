/** Text from the outside (event types and ids, source names, error texts from peers) is shown on
 * the operator's terminal: a control character in it could set the window title, write the
 * clipboard (OSC 52), erase a line and print a fake one, or reorder what is read (bidi
 * overrides). Every line the command line prints goes through `terminalSafe` (src/main/cli/io.ts), and
 * printers that lay out fields (tables, `listen`'s lines) escape each field with `inert` first, so
 * columns line up and an escaped field reads back exactly (`readInert`). docs/cli.md, "Output". */

/** C0 controls but newline, DEL, C1 controls, and the invisible format characters that reorder
 * or split what a terminal shows: bidi marks, embeddings, overrides and isolates, and the Unicode
 * line and paragraph separators. */
const controlClass =
  '\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069'
const control = new RegExp(`[${controlClass}]`, 'g')
const isControl = new RegExp(`^[${controlClass}]$`)

const hex = (code: number, width: number) => code.toString(16).padStart(width, '0')

/** `\x1b` for a control below U+0100 (how terminals and programmers name them), `\u202e` above. */
function escapeControl(char: string): string {
  const code = char.charCodeAt(0)
  return code < 0x100 ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`
}

/** One field as a terminal may show it: each control character written as `\x1b` / `\u202e`,
 * newline included (a field is one line). A backslash stays as it is (paths, regexes read as
 * typed) unless what follows could read as an escape (`\`, `x`, `u` or a control): then it is
 * doubled, so `readInert` gives back the exact text. */
export function inert(text: string): string {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (char === '\\') {
      const next = text[i + 1]
      const ambiguous =
        next !== undefined &&
        (next === '\\' || next === 'x' || next === 'u' || next === '\n' || isControl.test(next))
      out += ambiguous ? '\\\\' : '\\'
    } else if (char === '\n' || isControl.test(char)) out += escapeControl(char)
    else out += char
  }
  return out
}

/** The exact text an `inert` field was made from. */
export function readInert(shown: string): string {
  return shown.replace(/\\(\\|x[0-9a-f]{2}|u[0-9a-f]{4})/g, (_, escape: string) =>
    escape === '\\' ? '\\' : String.fromCharCode(parseInt(escape.slice(1), 16)),
  )
}

/** The last guard on every printed line: a control character no printer escaped becomes
 * `\u001b`, which inside a JSON string is the same JSON (so `--json` output parses to exactly the
 * same values) and on a text line is visible instead of acted on. Newlines are kept: a printer
 * writes several lines at once. */
export function terminalSafe(line: string): string {
  return line.replace(control, (char) => `\\u${hex(char.charCodeAt(0), 4)}`)
}
