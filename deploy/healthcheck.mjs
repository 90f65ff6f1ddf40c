#!/usr/bin/env node
// The container's HEALTHCHECK (deploy/Containerfile): GET /healthz on the sync port the relay was
// really started with. The relay is PID 1 (the entrypoint execs it), so its arguments are in
// /proc/1/cmdline: --port (default 7422), --host (a wildcard address is reached on loopback) and
// --tls-cert (then https; the certificate is the operator's, not checked here). Exit 0 when the
// relay answers 200, 1 otherwise, with the reason on stderr (docker inspect shows it).
import { readFileSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'

const pid = process.env.WATCHDESK_HEALTHCHECK_PID ?? '1'
const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
/** The last value of a flag, as the command line takes it (`--port 9000` or `--port=9000`). */
function flag(name) {
  let value
  args.forEach((arg, i) => {
    if (arg === name) value = args[i + 1]
    else if (arg.startsWith(`${name}=`)) value = arg.slice(name.length + 1)
  })
  return value
}
const port = Number(flag('--port') ?? 7422)
const bound = flag('--host') ?? '127.0.0.1'
const host = bound === '0.0.0.0' || bound === '::' ? '127.0.0.1' : bound
const tls = flag('--tls-cert') !== undefined
const url = `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}/healthz`
const request = (tls ? https : http).get(url, { timeout: 4000, rejectUnauthorized: false }, (res) => {
  res.resume()
  if (res.statusCode === 200) process.exit(0)
  console.error(`${url} answered ${res.statusCode}`)
  process.exit(1)
})
request.on('timeout', () => request.destroy(new Error('no answer within 4 s')))
request.on('error', (error) => {
  console.error(`${url}: ${error.message}`)
  process.exit(1)
})
