import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { openPostgresStore, pgConfigOf } from '../../../src/main/relay/pg-store'
import { unwrap } from '../../../src/shared/result'
import { usePostgres } from '../../support/postgres'

/** `sslmode` with libpq's meanings against a private cluster with ssl=on and a self-signed
 * certificate (openssl): node-postgres alone reads `require` as verify-full. */
describe('sslmode against a PostgreSQL server with a self-signed certificate', () => {
  const postgres = usePostgres({ ssl: true })
  const urlWith = (query: string) => `${postgres().url}?${query}`

  it('connects with sslmode=require, encrypted but not verified', async () => {
    const store = unwrap(await openPostgresStore(urlWith('sslmode=require')))
    await store.close()
    const client = new pg.Client(unwrap(pgConfigOf(urlWith('sslmode=require'))))
    await client.connect()
    try {
      const { rows } = await client.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')
      expect(rows).toEqual([{ ssl: true }])
    } finally {
      await client.end()
    }
  })

  it('refuses sslmode=verify-full without the CA, with a fix that names sslrootcert', async () => {
    const opened = await openPostgresStore(urlWith('sslmode=verify-full'))
    expect(opened.ok).toBe(false)
    if (opened.ok) return
    expect(opened.error.message).toMatch(/self-signed certificate/)
    expect(opened.error.message).toMatch(/sslrootcert=\/path\/to\/root\.crt/)
  })

  it('verifies with sslmode=verify-full and sslrootcert= the certificate', async () => {
    const certFile = postgres().certFile!
    const store = unwrap(
      await openPostgresStore(urlWith(`sslmode=verify-full&sslrootcert=${encodeURIComponent(certFile)}`)),
    )
    await store.close()
  })

  it('reads PGSSLMODE and PGSSLROOTCERT from the environment with the same meanings', async () => {
    const config = unwrap(pgConfigOf(postgres().url, { PGSSLMODE: 'require' } as NodeJS.ProcessEnv))
    expect(config.ssl).toMatchObject({ rejectUnauthorized: false })
    const verified = unwrap(
      pgConfigOf(postgres().url, {
        PGSSLMODE: 'verify-full',
        PGSSLROOTCERT: postgres().certFile!,
      } as NodeJS.ProcessEnv),
    )
    const client = new pg.Client(verified)
    await client.connect()
    await client.end()
  })

  it('names the missing file when sslrootcert= does not exist', async () => {
    const opened = await openPostgresStore(urlWith('sslmode=verify-full&sslrootcert=/nonexistent/root.crt'))
    expect(opened.ok).toBe(false)
    if (!opened.ok) expect(opened.error.message).toMatch(/\/nonexistent\/root\.crt/)
  })
})

describe('sslmode against a PostgreSQL server without TLS', () => {
  const postgres = usePostgres()

  it('says to turn ssl on in the server (or drop sslmode) when sslmode=require meets ssl=off', async () => {
    const opened = await openPostgresStore(`${postgres().url}?sslmode=require`)
    expect(opened.ok).toBe(false)
    if (!opened.ok) expect(opened.error.message).toMatch(/turn ssl on in postgresql\.conf/)
  })
})
