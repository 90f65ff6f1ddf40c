import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseEnvelope, signBody, verifySignature } from '../../../src/main/webhooks'

interface Vector {
  name: string
  secret: string
  body: string
  signature: string
}
// A copy of the service's published conformance vectors (shared/conformance/signature-vectors.json).
const vectorsFile = join(import.meta.dirname, 'signature-vectors.json')
const { vectors } = JSON.parse(readFileSync(vectorsFile, 'utf8')) as { vectors: Vector[] }

describe('webhook signatures', () => {
  it('has the conformance vectors to test', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(4)
  })

  for (const v of vectors) {
    it(`signs vector ${v.name} to its published signature`, () => {
      expect(signBody(v.secret, Buffer.from(v.body, 'utf8'))).toBe(v.signature)
    })

    it(`accepts vector ${v.name} and names the endpoint whose secret matched`, () => {
      const secrets = new Map([
        ['wh_decoy', Buffer.from('whsec_decoy_000000')],
        ['wh_right', Buffer.from(v.secret)],
      ])
      expect(verifySignature(Buffer.from(v.body, 'utf8'), v.signature, secrets)).toEqual({
        ok: true,
        endpoint: 'wh_right',
      })
    })

    it(`rejects vector ${v.name} when one byte of the body is changed`, () => {
      const body = Buffer.from(v.body, 'utf8')
      for (const at of [0, Math.floor(body.length / 2), body.length - 1]) {
        const tampered = Buffer.from(body)
        tampered[at] = tampered[at]! ^ 0x01
        expect(verifySignature(tampered, v.signature, new Map([['wh', Buffer.from(v.secret)]])).ok).toBe(
          false,
        )
      }
    })

    it(`rejects vector ${v.name} signed with another secret`, () => {
      const secrets = new Map([['wh', Buffer.from(v.secret + 'x')]])
      expect(verifySignature(Buffer.from(v.body, 'utf8'), v.signature, secrets)).toEqual({
        ok: false,
        reason: 'signature does not match',
      })
    })
  }

  it('rejects a secret without its whsec_ prefix, because the key is the secret exactly as issued', () => {
    const v = vectors[0]!
    const bare = new Map([['wh', Buffer.from(v.secret.replace(/^whsec_/, ''))]])
    expect(verifySignature(Buffer.from(v.body), v.signature, bare).ok).toBe(false)
  })

  it('tells a missing signature from a malformed one', () => {
    const secrets = new Map([['wh', Buffer.from('whsec_x')]])
    expect(verifySignature(Buffer.from('{}'), undefined, secrets)).toEqual({
      ok: false,
      reason: 'missing signature',
    })
    expect(verifySignature(Buffer.from('{}'), 'sha256=abc', secrets)).toEqual({
      ok: false,
      reason: 'malformed signature',
    })
    expect(verifySignature(Buffer.from('{}'), 'a'.repeat(63), secrets)).toEqual({
      ok: false,
      reason: 'malformed signature',
    })
  })

  it('parses an envelope and refuses bodies that are not one', () => {
    expect(parseEnvelope(Buffer.from(vectors[0]!.body)).ok).toBe(true)
    expect(parseEnvelope(Buffer.from('not json')).ok).toBe(false)
    expect(parseEnvelope(Buffer.from('[1,2]')).ok).toBe(false)
    expect(parseEnvelope(Buffer.from('{"id":"evt_1","type":"x","created_at":"t"}')).ok).toBe(false)
    expect(parseEnvelope(Buffer.from('{"id":"evt_1","type":"x","created_at":"t","data":[]}')).ok).toBe(false)
    expect(parseEnvelope(Buffer.from('{"id":1,"type":"x","created_at":"t","data":{}}')).ok).toBe(false)
  })
})
