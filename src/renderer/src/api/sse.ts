/** A server-sent-events reader for the push stream, fed text as it arrives in arbitrary chunks.
 * It follows the parts of the format the back end uses (and the spec's tolerances): frames end with
 * a blank line, `\r\n` or `\n` line ends, `data:` with or without one space, several data lines
 * joined by `\n`, comment lines (`: …`) and other fields ignored. */
export function createSseParser(onData: (data: string) => void): { feed(chunk: string): void } {
  let buffer = ''
  let data: string[] = []
  const line = (text: string) => {
    if (text === '') {
      if (data.length > 0) onData(data.join('\n'))
      data = []
      return
    }
    if (text.startsWith(':')) return
    const colon = text.indexOf(':')
    const field = colon < 0 ? text : text.slice(0, colon)
    let value = colon < 0 ? '' : text.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') data.push(value)
  }
  return {
    feed(chunk) {
      buffer += chunk
      let end: number
      while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
        // A lone \r at the very end may be the first half of \r\n: wait for the next chunk.
        if (buffer[end] === '\r' && end === buffer.length - 1) break
        const text = buffer.slice(0, end)
        buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1))
        line(text)
      }
    },
  }
}
