import { describe, expect, it } from 'vitest'
import { createSseParser } from '../../src/renderer/src/api/sse'

function parse(chunks: string[]): string[] {
  const out: string[] = []
  const parser = createSseParser((d) => out.push(d))
  for (const c of chunks) parser.feed(c)
  return out
}

describe('push-stream parser', () => {
  it('yields each data frame once, whatever the chunk boundaries', () => {
    const text = ': connected\n\ndata: {"a":1}\n\ndata: {"b":2}\n\n'
    const whole = parse([text])
    expect(whole).toEqual(['{"a":1}', '{"b":2}'])
    for (let cut = 1; cut < text.length; cut++) {
      expect(parse([text.slice(0, cut), text.slice(cut)]), `cut at ${cut}`).toEqual(whole)
    }
    expect(parse(text.split(''))).toEqual(whole)
  })

  it('accepts CRLF and CR line ends, data without a space, and joins data lines', () => {
    // A CR at the very end of a chunk may be half of CRLF: the frame completes with the next chunk.
    expect(parse(['data:x\r\n\r\ndata: y\rdata: z\r\r'])).toEqual(['x'])
    expect(parse(['data:x\r\n\r\ndata: y\rdata: z\r\r', 'data: w\n\n'])).toEqual(['x', 'y\nz', 'w'])
    expect(parse(['data: first\r', '\ndata: second\r\n', '\r\n'])).toEqual(['first\nsecond'])
  })

  it('ignores comments, other fields and a frame without data, and waits for the blank line', () => {
    expect(parse([': keep-alive\n\nevent: x\nid: 7\nretry: 10\n\n'])).toEqual([])
    expect(parse(['data: {"half":'])).toEqual([])
    expect(parse(['data: {"whole":true}\n', '\n'])).toEqual(['{"whole":true}'])
  })
})
