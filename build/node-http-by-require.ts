/** A build plugin (Vite's and rolldown's alike): the app's build (electron.vite.config.ts) and the
 * test suite's worker bundles (test/support/worker-bundles.ts) load `node:http` the same way. */
import { resolve } from 'node:path'
import type { Plugin } from 'vite'

/** `node:http` for the built back end through require(), not through Node's ES-module face of it:
 * that face copies every export of the module once, and three of them (WebSocket, CloseEvent,
 * MessageEvent) are getters that load Node's bundled undici, about 75 ms of CPU on every start of
 * a command that imports node:http (serve, listen, chains, …) for names nothing here uses.
 * require() reads no export. Node's builtins are external before any resolveId runs, so our own
 * sources' imports of it are pointed at a module of the plain exports (not the getters). */
const nodeHttpSpecifier = 'watchdesk:node-http'
const nodeHttpModule = `\0${nodeHttpSpecifier}`
/** The module name of an import of node:http (the quoted name after `from`). */
const nodeHttpImport = /(?<=\bfrom\s+)'(?:node:)?http'/g
export const nodeHttpByRequire = (): Plugin => ({
  name: 'watchdesk-node-http-by-require',
  enforce: 'pre',
  transform: (code, id) => {
    if (!id.startsWith(resolve('src'))) return null
    const replaced = code.replace(nodeHttpImport, `'${nodeHttpSpecifier}'`)
    return replaced === code ? null : replaced
  },
  resolveId: (id) => (id === nodeHttpSpecifier ? nodeHttpModule : null),
  load: (id) =>
    id !== nodeHttpModule
      ? null
      : [
          "import { createRequire } from 'node:module'",
          "const http = createRequire(import.meta.url)('node:http')",
          'export default http',
          'export const { Agent, ClientRequest, IncomingMessage, METHODS, OutgoingMessage, STATUS_CODES, Server,',
          '  ServerResponse, createServer, get, request, setMaxIdleHTTPParsers, validateHeaderName,',
          '  validateHeaderValue } = http',
        ].join('\n'),
})
