import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { plainLine, quoted, slackEscape } from '../../../src/main/alerts/channel-text'
import { inert, readInert, terminalSafe } from '../../../src/shared/inert'
import { formatTable } from '../../../src/main/cli/io'

/** Every character a terminal acts on instead of showing (C0, DEL, C1, bidi, line separators). */
const controlClass =
  '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069'
const anyControl = new RegExp(`[${controlClass}]`)
const controlButNewline = new RegExp(
  `[${controlClass.replace('\\u0000-\\u001f', '\\u0000-\\u0009\\u000b-\\u001f')}]`,
)

/** Strings rich in what matters here: controls, escapes, backslashes, x/u, and any Unicode. */
const hostile = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({
    unit: fc.constantFrom(
      '\x1b',
      '\x07',
      '\r',
      '\n',
      '\t',
      '\\',
      'x',
      'u',
      '1',
      'b',
      '\u009b',
      '\u202e',
      '\u2028',
      'a',
      ']',
      ';',
    ),
  }),
)
const runs = { numRuns: 2000 }

describe('the terminal escaping of the command line (src/shared/inert.ts)', () => {
  it('inert: no control character (newline included) survives, and readInert gives back the exact text', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const shown = inert(text)
        expect(shown).not.toMatch(anyControl)
        expect(readInert(shown)).toBe(text)
      }),
      runs,
    )
  })

  it('inert leaves text without controls or ambiguous backslashes as it is (readable)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        fc.pre(!anyControl.test(text) && !/\\/.test(text))
        expect(inert(text)).toBe(text)
      }),
      runs,
    )
    expect(inert('\x1b]0;pwned\x07')).toBe('\\x1b]0;pwned\\x07')
    expect(inert('C:\\Users\\me')).toBe('C:\\Users\\me')
    expect(inert('\u202etxt')).toBe('\\u202etxt')
  })

  it('terminalSafe: no control but newline on any line, and a JSON line stays the same JSON', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        expect(terminalSafe(text)).not.toMatch(controlButNewline)
      }),
      runs,
    )
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), hostile, (value, key) => {
        const line = JSON.stringify({ [key]: value, text: key })
        expect(terminalSafe(line)).not.toMatch(anyControl)
        expect(JSON.parse(terminalSafe(line))).toEqual(JSON.parse(line))
      }),
      { numRuns: 500 },
    )
  })

  it('a table of hostile cells holds no control and stays one line per row', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(hostile, hostile), { minLength: 1, maxLength: 5 }), (rows) => {
        const lines = formatTable(['a', 'b'], rows).split('\n')
        expect(lines).toHaveLength(rows.length + 1)
        for (const line of lines) expect(line).not.toMatch(anyControl)
      }),
      { numRuns: 500 },
    )
  })
})

describe('alert channel text (src/main/alerts/channel-text.ts)', () => {
  it('slackEscape leaves no < or > (no link, no mention) and reads back exactly', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const escaped = slackEscape(text)
        expect(escaped).not.toMatch(/[<>]/)
        expect(escaped.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')).toBe(text)
      }),
      runs,
    )
  })

  it('plainLine and quoted are one line without controls; quoted reads back with JSON.parse', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        expect(plainLine(text)).not.toMatch(anyControl)
        expect(quoted(text)).not.toMatch(anyControl)
        expect(JSON.parse(quoted(text))).toBe(text)
      }),
      runs,
    )
  })
})
