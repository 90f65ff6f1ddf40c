import { execFileSync, spawn, spawnSync } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { request } from 'node:https'
import { dirname, join, relative } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createRelayToken } from '../../src/main/relay'
import { unwrap } from '../../src/shared/result'
import { relaySecret, useRelays } from '../main/relay/helpers'
import { freePort } from '../support/ports'
import { repoRoot } from '../support/serve-process'
import { useTempDir } from '../support/temp'
import { selfSignedCert } from '../support/tunnel'
import { waitFor } from '../support/wait'

const deploy = (file: string) => join(repoRoot, 'deploy', file)
const asRoot = process.getuid?.() === 0

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(command, args, { encoding: 'utf8', env })
  if (result.error) throw new Error(`${command} cannot run: ${result.error.message}`)
  return { code: result.status, output: `${result.stdout}${result.stderr}`.trim() }
}

/** Processes a test starts (nginx, the emulated container), stopped after it. */
function useChildren() {
  const children: ChildProcess[] = []
  afterEach(async () => {
    await Promise.all(
      children.splice(0).map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve()
            c.once('exit', () => resolve())
            c.kill('SIGTERM')
          }),
      ),
    )
  })
  return (c: ChildProcess) => (children.push(c), c)
}

/** GET over HTTPS to 127.0.0.1 with a virtual host's name (SNI and Host), trusting `caFile`. */
function getVia(
  port: number,
  host: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        servername: host,
        headers: { host, ...headers },
        rejectUnauthorized: false,
      },
      (res) => {
        let body = ''
        res.on('data', (d: Buffer) => (body += d.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }))
      },
    )
    req.on('error', reject)
    req.end()
  })
}

/** The folders `npm ci --omit=dev --omit=optional` installs (the Containerfile's deps stage): every
 * package of package-lock.json not marked dev, optional or devOptional. The same folders (39) as
 * `npm ls --omit=dev --omit=optional --all --parseable` lists, read without starting npm (1.5 CPU-s). */
function productionPackages(): string[] {
  const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; optional?: boolean; devOptional?: boolean }>
  }
  return Object.entries(lock.packages)
    .filter(([path, p]) => path.startsWith('node_modules/') && !p.dev && !p.optional && !p.devOptional)
    .map(([path]) => join(repoRoot, path))
}

describe('the deployment files in deploy/, checked by the real tools', () => {
  const tempDir = useTempDir('watchdesk-deploy-')
  const relays = useRelays()
  const track = useChildren()

  it('the systemd unit passes systemd-analyze verify and rates OK or better on security', () => {
    const unit = readFileSync(deploy('watchdesk-relay.service'), 'utf8')
    // systemd has no inline comments: "EnvironmentFile=/x # note" would make "# note" part of the path.
    for (const line of unit.split('\n'))
      if (!line.startsWith('#')) expect(line, 'an inline comment').not.toMatch(/\s#/)
    // The Node 22 docs/relay.md installs (not Debian's /usr/bin/node, which is older).
    const execStart = /^ExecStart=(\S+)/m.exec(unit)![1]!
    expect(execStart).toBe('/opt/node22/bin/node')
    expect(readFileSync(join(repoRoot, 'docs/relay.md'), 'utf8')).toContain('--prefix /opt/node22 node@22')
    for (const line of [
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'ProtectHome=yes',
      'PrivateTmp=yes',
      'ReadWritePaths=/var/lib/watchdesk',
    ])
      expect(unit).toContain(line)

    // verify checks that ExecStart's program exists: a root with it (and systemd's own units).
    const root = tempDir()
    mkdirSync(join(root, 'etc/systemd/system'), { recursive: true })
    mkdirSync(join(root, 'opt/node22/bin'), { recursive: true })
    mkdirSync(join(root, 'usr/lib/systemd'), { recursive: true })
    cpSync('/usr/lib/systemd/system', join(root, 'usr/lib/systemd/system'), { recursive: true })
    writeFileSync(join(root, 'opt/node22/bin/node'), '#!/bin/sh\n', { mode: 0o755 })
    copyFileSync(deploy('watchdesk-relay.service'), join(root, 'etc/systemd/system/watchdesk-relay.service'))
    const verified = run('systemd-analyze', [
      'verify',
      `--root=${root}`,
      '/etc/systemd/system/watchdesk-relay.service',
    ])
    expect(verified).toEqual({ code: 0, output: '' })

    const security = run('systemd-analyze', ['security', '--offline=yes', deploy('watchdesk-relay.service')])
    const overall = /Overall exposure level for watchdesk-relay\.service: ([\d.]+) (\w+)/.exec(
      security.output,
    )
    expect(overall, security.output).not.toBeNull()
    expect(Number(overall![1])).toBeLessThanOrEqual(4.9)
    expect(['PERFECT', 'SAFE', 'OK']).toContain(overall![2])
  })

  it('the nginx snippet passes nginx -t and, running, passes /healthz, /metrics and the SSE stream to a relay', async () => {
    const store = relays.sqliteStore(join(tempDir(), 'relay.db'))
    const relay = await relays.relay(store, { heartbeatMs: 200 })
    const token = unwrap(await createRelayToken(store, 'prometheus', 'read'))
    const syncPort = new URL(relay.syncUrl).port
    const listenerPort = new URL(relay.listenerUrl).port
    const prefix = tempDir()
    const cert = selfSignedCert(prefix)
    const port = await freePort()
    // The snippet as written, with this test's certificate, port and relay ports put in.
    const snippet = readFileSync(deploy('nginx-relay.conf'), 'utf8')
      .replace(/ssl_certificate (\S+);/g, `ssl_certificate ${cert.certFile};`)
      .replace(/ssl_certificate_key (\S+);/g, `ssl_certificate_key ${cert.keyFile};`)
      .replace(/listen 443 ssl;/g, `listen 127.0.0.1:${port} ssl;`)
      .replace(/127\.0\.0\.1:7422/g, `127.0.0.1:${syncPort}`)
      .replace(/127\.0\.0\.1:7421/g, `127.0.0.1:${listenerPort}`)
    expect(snippet).not.toMatch(/example\.com\.(crt|key)/)
    writeFileSync(join(prefix, 'watchdesk-relay.conf'), snippet)
    writeFileSync(
      join(prefix, 'nginx.conf'),
      [
        `pid ${join(prefix, 'nginx.pid')};`,
        'error_log stderr;',
        'events { worker_connections 64; }',
        'http {',
        `  access_log off;`,
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
          (t) => `  ${t}_temp_path ${join(prefix, t)};`,
        ),
        `  include ${join(prefix, 'watchdesk-relay.conf')};`,
        '}',
      ].join('\n'),
    )
    const args = ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', 'stderr']
    const tested = run('nginx', ['-t', ...args])
    expect(tested.output).toMatch(/syntax is ok/)
    expect(tested.code).toBe(0)

    const nginx = track(spawn('nginx', [...args, '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] }))
    let log = ''
    nginx.stderr!.on('data', (d: Buffer) => (log += d.toString()))
    const health = await waitFor(
      () => getVia(port, 'relay.example.com', '/healthz').catch(() => undefined),
      `nginx to answer (${log})`,
    )
    expect(health.status).toBe(200)
    expect(JSON.parse(health.body)).toMatchObject({ ok: true })
    expect((await getVia(port, 'hooks.example.com', '/healthz')).status).toBe(200)
    const metrics = await getVia(port, 'relay.example.com', '/metrics', { authorization: `Bearer ${token}` })
    expect(metrics.status).toBe(200)
    expect(metrics.body).toContain('watchdesk_listener_accepted_total')
    expect((await getVia(port, 'relay.example.com', '/elsewhere')).status).toBe(404)
    // The stream passes through unbuffered: its first heartbeat arrives while it stays open.
    const heartbeat = await new Promise<string>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/sync/stream?after=0',
          servername: 'relay.example.com',
          headers: { host: 'relay.example.com', authorization: `Bearer ${token}` },
          rejectUnauthorized: false,
        },
        (res) => {
          let text = ''
          res.on('data', (d: Buffer) => {
            text += d.toString()
            if (text.includes('event: heartbeat')) {
              req.destroy()
              resolve(text)
            }
          })
        },
      )
      req.on('error', reject)
      req.end()
    })
    expect(heartbeat).toContain('event: heartbeat')
  })

  it('the Caddyfile passes caddy validate and routes /healthz and /metrics to the relay, the rest to 404', () => {
    const home = tempDir()
    const env = { ...process.env, HOME: home, XDG_DATA_HOME: home, XDG_CONFIG_HOME: home }
    const validated = run(
      'caddy',
      ['validate', '--adapter', 'caddyfile', '--config', deploy('Caddyfile')],
      env,
    )
    expect(validated.output).toMatch(/Valid configuration/)
    expect(validated.code).toBe(0)
    const adapted = execFileSync(
      'caddy',
      ['adapt', '--adapter', 'caddyfile', '--config', deploy('Caddyfile')],
      {
        env,
        encoding: 'utf8',
      },
    )
    const config = JSON.parse(adapted)
    const routes = config.apps.http.servers.srv0.routes as { match: { host: string[] }[] }[]
    const site = (host: string) => JSON.stringify(routes.find((r) => r.match[0]!.host.includes(host)))
    for (const [host, paths] of [
      ['relay.example.com', ['/sync/*', '/metrics', '/healthz']],
      ['hooks.example.com', ['/webhooks*', '/healthz']],
    ] as const) {
      const text = site(host)
      for (const path of paths) expect(text).toContain(`"path":["${path}"]`)
      expect(text).toContain('"status_code":404')
      expect(text).toContain('"upstreams":[{"dial":"127.0.0.1:7422"}]')
    }
    expect(site('relay.example.com')).toContain('"flush_interval":-1')
  })

  it('Caddy running the Caddyfile answers /healthz and /metrics from the relay and 404 elsewhere, never its own 200', async () => {
    const store = relays.sqliteStore(join(tempDir(), 'relay.db'))
    const relay = await relays.relay(store)
    const token = unwrap(await createRelayToken(store, 'prometheus', 'metrics'))
    const home = tempDir()
    const [httpPort, httpsPort] = [await freePort(), await freePort()]
    // The file as written; for the test: loopback only, its own ports, no admin endpoint, a local
    // CA instead of ACME (no network), and the relay's ports.
    const caddyfile = readFileSync(deploy('Caddyfile'), 'utf8')
      .replace(
        /^\{\n/m,
        `{\n\tadmin off\n\tlocal_certs\n\tskip_install_trust\n\tdefault_bind 127.0.0.1\n\thttp_port ${httpPort}\n\thttps_port ${httpsPort}\n\tstorage file_system ${home}\n`,
      )
      .replace(/127\.0\.0\.1:7422/g, `127.0.0.1:${new URL(relay.syncUrl).port}`)
      .replace(/127\.0\.0\.1:7421/g, `127.0.0.1:${new URL(relay.listenerUrl).port}`)
    writeFileSync(join(home, 'Caddyfile'), caddyfile)
    const caddy = track(
      spawn('caddy', ['run', '--adapter', 'caddyfile', '--config', join(home, 'Caddyfile')], {
        env: { ...process.env, HOME: home, XDG_DATA_HOME: home, XDG_CONFIG_HOME: home },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    )
    let log = ''
    caddy.stderr!.on('data', (d: Buffer) => (log += d.toString()))
    const health = await waitFor(
      () => getVia(httpsPort, 'relay.example.com', '/healthz').catch(() => undefined),
      `Caddy to answer (${log.slice(-2000)})`,
      { timeoutMs: 20_000 },
    )
    expect(health.status).toBe(200)
    expect(JSON.parse(health.body)).toMatchObject({ ok: true })
    // Each site gets its certificate from the local CA on its own, the second maybe a moment later
    // (a TLS alert until then): wait for it as for the first.
    const hooks = await waitFor(
      () => getVia(httpsPort, 'hooks.example.com', '/healthz').catch(() => undefined),
      `Caddy to answer for hooks.example.com (${log.slice(-2000)})`,
      { timeoutMs: 20_000 },
    )
    expect(hooks.status).toBe(200)
    const metrics = await getVia(httpsPort, 'relay.example.com', '/metrics', {
      authorization: `Bearer ${token}`,
    })
    expect(metrics.status).toBe(200)
    expect(metrics.body).toContain('watchdesk_listener_up 1')
    expect((await getVia(httpsPort, 'relay.example.com', '/metrics')).status).toBe(401)
    expect((await getVia(httpsPort, 'relay.example.com', '/elsewhere')).status).toBe(404)
    expect((await getVia(httpsPort, 'hooks.example.com', '/sync/events')).status).toBe(404)
  })

  it.skipIf(!asRoot)(
    "the container's runtime stage, laid out as it copies it, runs a relay as its user on a fresh root-owned /data",
    async () => {
      const containerfile = readFileSync(deploy('Containerfile'), 'utf8')
      const runtime = containerfile.slice(containerfile.indexOf('AS runtime'))
      const root = tempDir()
      chmodSync(root, 0o755)
      const app = join(root, 'app')
      mkdirSync(app, { recursive: true })
      // Each COPY of the runtime stage, from what the build stages hold (the built repository;
      // for node_modules only the production dependency tree, as `npm ci --omit=dev` installs).
      const copies = [...runtime.matchAll(/^COPY (?:--from=(\w+) )?(\S+) (\S+)$/gm)]
      expect(copies.length).toBeGreaterThanOrEqual(5)
      for (const [, stage, from, to] of copies) {
        const target = to!.startsWith('/') ? join(root, to!) : join(app, to!)
        const source = stage ? join(repoRoot, relative('/app', from!)) : join(repoRoot, from!)
        mkdirSync(dirname(target), { recursive: true })
        if (stage === 'deps' && from === '/app/node_modules') {
          for (const dir of productionPackages())
            cpSync(dir, join(target, relative(join(repoRoot, 'node_modules'), dir)), {
              recursive: true,
              filter: (src) => !src.slice(dir.length).includes('/node_modules/'),
            })
        } else cpSync(source, target, { recursive: true })
      }
      // The base image's node (node:22 puts it in /usr/local/bin).
      const node = join(root, 'usr/local/bin/node')
      try {
        linkSync(realpathSync(process.execPath), node)
      } catch {
        copyFileSync(realpathSync(process.execPath), node)
      }
      const envLine = /^ENV (.+)$/m.exec(runtime)![1]!
      const imageEnv = Object.fromEntries(envLine.split(/\s+/).map((kv) => kv.split('=') as [string, string]))
      expect(imageEnv.WATCHDESK_DATA_DIR).toBe('/data')
      // A fresh named volume: an empty directory owned by root.
      const data = join(root, 'data')
      mkdirSync(data, { mode: 0o755 })
      expect(statSync(data).uid).toBe(0)
      const entrypoint = JSON.parse(/^ENTRYPOINT (.+)$/m.exec(runtime)![1]!) as string[]
      expect(entrypoint[0]).toBe('watchdesk-entrypoint')
      const child = track(
        spawn(
          join(root, 'usr/local/bin', entrypoint[0]!),
          [
            ...entrypoint.slice(1),
            '--store',
            `sqlite:${join(data, 'watchdesk.db')}`,
            // Tests bind loopback only (the image binds 0.0.0.0); the last --host wins.
            '--host',
            '127.0.0.1',
            '--listener-port',
            '0',
            '--port',
            '0',
          ],
          {
            cwd: app,
            env: {
              PATH: `${join(root, 'usr/local/bin')}:/usr/bin:/bin`,
              ...imageEnv,
              WATCHDESK_DATA_DIR: data,
              WATCHDESK_WEBHOOK_SECRETS: relaySecret,
            },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        ),
      )
      let out = ''
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
      child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
      const sync = await waitFor(
        () => {
          if (child.exitCode !== null) throw new Error(`the relay exited (${child.exitCode}): ${out}`)
          return /^sync: +(\S+?)\/sync\/$/m.exec(out)?.[1]
        },
        'the relay in the container layout to start',
        { timeoutMs: 20_000 },
      )
      const health = await fetch(`${sync}/healthz`)
      expect(health.status).toBe(200)
      // It runs as the image's user, which now owns the data dir and the database in it.
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
      expect(/^Uid:\s+(\d+)/m.exec(status)![1]).toBe(imageEnv.WATCHDESK_UID)
      expect(/^CapEff:\s+(\w+)/m.exec(status)![1]).toBe('0000000000000000')
      expect(String(statSync(data).uid)).toBe(imageEnv.WATCHDESK_UID)
      expect(String(statSync(join(data, 'watchdesk.db')).uid)).toBe(imageEnv.WATCHDESK_UID)
      // The health check script is in the image (its port-following is the HEALTHCHECK test's).
      expect(runtime).toMatch(/^HEALTHCHECK [^\n]*\\\n[^\n]*watchdesk-healthcheck\.mjs/m)
      expect(existsSync(join(root, 'usr/local/bin/watchdesk-healthcheck.mjs'))).toBe(true)
      expect(readFileSync(join(repoRoot, '.dockerignore'), 'utf8')).toMatch(/^node_modules$/m)
    },
  )

  it("the container's HEALTHCHECK asks /healthz on the port the relay was started with, not 7422", async () => {
    const containerfile = readFileSync(deploy('Containerfile'), 'utf8')
    const check = JSON.parse(/^HEALTHCHECK [^\n]*\\\n\s*CMD (.+)$/m.exec(containerfile)![1]!) as string[]
    const script = check.at(-1)!
    // The script the image runs is the one copied from deploy/.
    expect(containerfile).toContain(`COPY deploy/healthcheck.mjs ${script}`)
    const port = await freePort()
    const dir = tempDir()
    const configured = track(
      spawn(
        process.execPath,
        [
          join(repoRoot, 'bin/watchdesk'),
          'relay',
          '--host',
          '0.0.0.0',
          '--store',
          `sqlite:${join(dir, 'watchdesk.db')}`,
          '--listener-port',
          '0',
          '--port',
          '7422',
          `--port=${port}`,
        ],
        {
          // As the image passes them (--host 0.0.0.0), with a CMD that moves the port: the last wins.
          env: { ...process.env, WATCHDESK_DATA_DIR: dir, WATCHDESK_WEBHOOK_SECRETS: relaySecret },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      ),
    )
    let out = ''
    configured.stdout!.on('data', (d: Buffer) => (out += d.toString()))
    configured.stderr!.on('data', (d: Buffer) => (out += d.toString()))
    await waitFor(
      () => {
        if (configured.exitCode !== null) throw new Error(`the relay exited: ${out}`)
        return out.includes(`:${port}/sync/`)
      },
      'the relay on its configured port',
      { timeoutMs: 30_000 },
    )
    // The check, as the image runs it, pointed at this relay's process instead of PID 1.
    const run = () =>
      spawnSync(process.execPath, [deploy('healthcheck.mjs')], {
        env: { WATCHDESK_HEALTHCHECK_PID: String(configured.pid) },
        encoding: 'utf8',
        timeout: 30_000,
      })
    const healthy = run()
    expect(healthy.stderr).toBe('')
    expect(healthy.status).toBe(0)
    // Stopped (SIGSTOP: the port stays bound, nothing answers within the check's time): unhealthy.
    configured.kill('SIGSTOP')
    try {
      const stuck = run()
      expect(stuck.status).toBe(1)
      expect(stuck.stderr).toContain(`127.0.0.1:${port}/healthz`)
    } finally {
      configured.kill('SIGCONT')
    }
  })

  it('docs/relay.md links every deployment file instead of keeping a second copy', () => {
    const docs = readFileSync(join(repoRoot, 'docs/relay.md'), 'utf8')
    for (const file of [
      'watchdesk-relay.service',
      'Containerfile',
      'entrypoint.sh',
      'healthcheck.mjs',
      'nginx-relay.conf',
      'Caddyfile',
    ])
      expect(docs).toContain(`(../deploy/${file})`)
    expect(docs).not.toMatch(/```(ini|nginx|caddy|dockerfile)/)
    expect(docs).not.toContain('ExecStart=')
  })
})
