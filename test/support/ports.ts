import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'

/** Holds a loopback port the way another program would, so a test can ask for that port. */
export async function occupyPort(): Promise<{ port: number; close(): void }> {
  const squatter = createServer()
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve))
  return { port: (squatter.address() as AddressInfo).port, close: () => squatter.close() }
}

/** A loopback port free right now, for a program that takes its port as an argument. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  await new Promise((resolve) => server.close(resolve))
  return port
}
