import { createServer } from 'node:http'
import type { Server, ServerResponse } from 'node:http'
import { connect } from 'node:net'
import type { AddressInfo, Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createStreamWriter } from '../../../src/main/transport/stream-writer'
import type { StreamWriter } from '../../../src/main/transport/stream-writer'
import { waitFor } from '../../support/wait'

/** A real HTTP server whose every response is a stream written through the writer; and raw
 * sockets that open one, reading it or not. */
function useStreams() {
  const servers: Server[] = []
  const sockets: Socket[] = []
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy()
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => (s.closeAllConnections(), s.close(r)))))
  })
  return async (maxBufferedBytes: number) => {
    const writers: StreamWriter[] = []
    const server = createServer((_req, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      writers.push(
        createStreamWriter(res, {
          maxBufferedBytes,
          heartbeat: () => 'event: heartbeat\ndata: {}\n\n',
          endGraceMs: 200,
        }),
      )
    })
    servers.push(server)
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const port = (server.address() as AddressInfo).port
    const open = async (reading: boolean) => {
      const socket = connect(port, '127.0.0.1')
      sockets.push(socket)
      socket.on('error', () => {})
      let received = 0
      let text = ''
      if (reading)
        socket.on('data', (d: Buffer) => {
          received += d.length
          if (text.length < 100_000) text += d.toString()
        })
      else socket.pause()
      socket.write(`GET / HTTP/1.1\r\nHost: x\r\n\r\n`)
      const count = writers.length
      await waitFor(() => writers.length > count, 'the stream to open')
      return { socket, writer: writers[count]!, received: () => received, text: () => text }
    }
    return { open }
  }
}

/** The body of a chunked HTTP/1.1 response (headers and chunk sizes taken off). */
function dechunk(response: string): string {
  let at = response.indexOf('\r\n\r\n') + 4
  let body = ''
  for (;;) {
    const end = response.indexOf('\r\n', at)
    const size = parseInt(response.slice(at, end), 16)
    if (!size) return body
    body += response.slice(end + 2, end + 2 + size)
    at = end + 2 + size + 2
  }
}

describe('the bounded stream writer', () => {
  const streams = useStreams()

  it('refuses frames to a subscriber that stopped reading once it holds the cap, while a reading one gets every frame', async () => {
    const { open } = await streams(64 * 1024)
    const stalled = await open(false)
    const reading = await open(true)
    const frame = `data: ${'x'.repeat(10_000)}\n\n`
    let refused = 0
    let offered = 0
    // 20 MB offered: far beyond what the kernel's socket buffers take for the stalled one.
    while (offered < 2_000) {
      offered++
      if (!stalled.writer.offer(frame)) refused++
      expect(reading.writer.offer(frame)).toBe(true)
      expect(stalled.writer.buffered()).toBeLessThanOrEqual(64 * 1024 + frame.length)
      if (reading.writer.needsDrain()) await reading.writer.drained()
    }
    expect(refused).toBeGreaterThan(1_000)
    await waitFor(() => reading.received() >= offered * frame.length || undefined, 'the reader to get all')
  })

  it('ends a stream and cuts off a subscriber that does not read the rest', async () => {
    const { open } = await streams(64 * 1024)
    const stalled = await open(false)
    const frame = `data: ${'y'.repeat(10_000)}\n\n`
    while (stalled.writer.offer(frame));
    let closedAt = 0
    stalled.writer.onClose(() => (closedAt = Date.now()))
    stalled.writer.end()
    expect(stalled.writer.closed()).toBe(true)
    expect(closedAt).toBeGreaterThan(0)
    expect(stalled.writer.offer(frame)).toBe(false)
    // The subscriber finds the stream gone when it reads again.
    stalled.socket.resume()
    await waitFor(
      () => stalled.socket.destroyed || stalled.socket.readableEnded || undefined,
      'the socket to close',
    )
  })

  it('refuses frames once something else ended the response, without a write-after-end error', async () => {
    const errors: Error[] = []
    let res: ServerResponse | null = null
    let writer: StreamWriter | null = null
    const server = createServer((_req, response: ServerResponse) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.on('error', (e) => errors.push(e))
      res = response
      writer = createStreamWriter(response, { maxBufferedBytes: 64 * 1024 })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1')
    socket.on('data', () => {})
    socket.write(`GET / HTTP/1.1\r\nHost: x\r\n\r\n`)
    await waitFor(() => writer, 'the stream to open')
    // What a server does to its open responses when it stops (the writer is not told).
    res!.end()
    expect(writer!.offer('data: late\n\n')).toBe(false)
    writer!.write('data: later\n\n')
    await new Promise((r) => setImmediate(r))
    expect(errors.map((e) => e.message)).toEqual([])
    socket.destroy()
    await new Promise((r) => (server.closeAllConnections(), server.close(r)))
  })

  it('sends a heartbeat only when nothing else was written since the last beat', async () => {
    const { open } = await streams(64 * 1024)
    const busy = await open(true)
    busy.writer.write('data: 1\n\n')
    busy.writer.beat()
    busy.writer.end()
    const quiet = await open(true)
    quiet.writer.beat()
    quiet.writer.end()
    // The chunked response's last chunk: the stream ended (the connection itself may stay open).
    for (const sub of [busy, quiet])
      await waitFor(() => sub.text().endsWith('0\r\n\r\n'), 'the stream to end')
    expect(busy.text()).toContain('data: 1')
    expect(busy.text()).not.toContain('heartbeat')
    expect(quiet.text()).toContain('event: heartbeat')
  })

  it('writes a frame given in pieces whole and in order, and refuses it whole to a stalled subscriber', async () => {
    const { open } = await streams(64 * 1024)
    const reading = await open(true)
    const pieces = ['data: {"events":[', '1,2', ',3', '],"omitted":0}\n\n']
    expect(reading.writer.offer(pieces)).toBe(true)
    reading.writer.end()
    await waitFor(() => reading.text().endsWith('0\r\n\r\n'), 'the stream to end')
    // What the subscriber reads, with the chunked encoding's framing of each write taken off.
    expect(dechunk(reading.text())).toBe(pieces.join(''))
    const stalled = await open(false)
    const big = [`data: ${'z'.repeat(10_000)}`, '\n\n']
    while (stalled.writer.offer(big));
    const held = stalled.writer.buffered()
    expect(stalled.writer.offer(['data: late', '\n\n'])).toBe(false)
    expect(stalled.writer.buffered()).toBe(held)
  })
})
