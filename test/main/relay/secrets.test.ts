import { spawnSync } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { maskUrlSecrets, urlSecretValues } from '../../../src/shared/mask'
import { usePostgres } from '../../support/postgres'
import { spawnRelay } from '../../support/relay-process'
import { getJson, relaySecret } from './helpers'

const bin = join(import.meta.dirname, '../../..', 'bin/watchdesk')

describe('secrets a store URL carries', () => {
  it('are masked in every form: userinfo, password=, sslpassword=, passfile=, libpq key=value', () => {
    const cases: [string, string][] = [
      ['postgres://relay:s3cret@db/watchdesk', 'postgres://relay:***@db/watchdesk'],
      ['postgres://relay@db/watchdesk?password=s3cret', 'postgres://relay@db/watchdesk?password=***'],
      [
        'postgresql://u@h:5432/d?sslmode=verify-full&sslpassword=k3y&passfile=/root/.pgpass&application_name=x',
        'postgresql://u@h:5432/d?sslmode=verify-full&sslpassword=***&passfile=***&application_name=x',
      ],
      ['postgres://u@h/d?PASSWORD=s3cret#frag', 'postgres://u@h/d?PASSWORD=***#frag'],
      ["host=db user=relay password='two words' dbname=x", 'host=db user=relay password=*** dbname=x'],
      [
        'cannot connect to postgres://a:b@h/d?password=c (ECONNREFUSED)',
        'cannot connect to postgres://a:***@h/d?password=*** (ECONNREFUSED)',
      ],
      ['https://relay.example:7422/sync?token=wdr_abc', 'https://relay.example:7422/sync?token=***'],
    ]
    for (const [url, masked] of cases) expect(maskUrlSecrets(url)).toBe(masked)
    // Nothing else changes.
    expect(maskUrlSecrets('postgres://relay@db/watchdesk?sslmode=require')).toBe(
      'postgres://relay@db/watchdesk?sslmode=require',
    )
    expect(urlSecretValues('postgres://u:p%40ss@h/d?password=q&sslpassword=r')).toEqual(
      expect.arrayContaining(['p%40ss', 'p@ss', 'q', 'r']),
    )
  })
})

describe('a relay started with secrets in its PostgreSQL URL', () => {
  const postgres = usePostgres()
  const children: ChildProcess[] = []
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  })

  const secrets = ['pw_userinfo_7f3a9c', 'pw_query_5b8e21', 'pw_sslkey_91d4c6']
  const withSecrets = (url: string) =>
    url.replace('postgres://postgres@', `postgres://postgres:${secrets[0]}@`) +
    `?password=${secrets[1]}&sslpassword=${secrets[2]}&sslmode=disable`

  it('never shows ?password= (or any other) in its output, its JSON log, its error messages or the sync API', async () => {
    const url = withSecrets(await postgres().createDatabase('masked'))
    const created = spawnSync(process.execPath, [bin, 'relay', 'token', 'create', 'ops', '--store', url], {
      encoding: 'utf8',
    })
    expect(created.status).toBe(0)
    const token = created.stdout.trim()
    const relay = await spawnRelay(url, {
      WATCHDESK_WEBHOOK_SECRETS: relaySecret,
      WATCHDESK_LOG_LEVEL: 'info',
    }).ready
    children.push(relay.child)
    const listener = await getJson(`${relay.sync}/sync/listener`, token)
    expect(listener.status).toBe(200)
    expect(listener.body.storage.file).toMatch(/password=\*\*\*/)
    // A store that cannot be reached: the error message quotes the URL.
    const unreachable = spawnSync(
      process.execPath,
      [bin, 'relay', '--store', url.replace(/:\d+\//, ':1/'), '--listener-port', '0', '--port', '0'],
      { encoding: 'utf8', env: { ...process.env, WATCHDESK_WEBHOOK_SECRETS: 'whsec_x' } },
    )
    expect(unreachable.status).toBe(3)
    expect(unreachable.stderr).toMatch(
      /PostgreSQL at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/masked\w*\?password=\*\*\*/,
    )
    const everything = [
      created.stdout,
      created.stderr,
      relay.output(),
      JSON.stringify(listener.body),
      unreachable.stdout,
      unreachable.stderr,
    ].join('\n')
    // The JSON log said where the store is (masked), so the check below looked at it.
    expect(relay.output()).toMatch(/"store":"postgres:\/\/postgres:\*\*\*@/)
    for (const secret of secrets) expect(everything).not.toContain(secret)
    // Three Node starts and a relay's: 11 s at load 28 beside the heavier relay files, and over
    // the default 30 s three times in batches at load 28–30.
  }, 90_000)
})
