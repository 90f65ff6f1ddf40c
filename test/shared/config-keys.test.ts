import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { configKeys } from '../../src/shared/config-keys'

const docs = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'configuration.md'), 'utf8')

/** The rows of the generated table in docs/configuration.md, cells trimmed (prettier aligns them). */
function documentedKeys(): { key: string; type: string; default: string | null }[] {
  const section = docs.split('<!-- config-keys:start -->')[1]?.split('<!-- config-keys:end -->')[0] ?? ''
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim().replaceAll('\\|', '|'))
      const unquote = (c: string) => c.replace(/^`|`$/g, '')
      return {
        key: unquote(cells[0]!),
        type: cells[1]!,
        default: cells[2] === '—' ? null : unquote(cells[2]!),
      }
    })
}

describe('the config key reference', () => {
  it('lists every key of the schema with its type and default, and nothing else', () => {
    const fromSchema = configKeys().map(({ key, type, default: d }) => ({ key, type, default: d }))
    // When this fails: bin/watchdesk config keys --markdown, paste between the markers, prettier.
    expect(documentedKeys()).toEqual(fromSchema)
  })

  it('reaches into records, lists and unions of the schema', () => {
    const keys = configKeys().map((k) => k.key)
    expect(keys).toEqual(
      expect.arrayContaining([
        'chains.<service id>.slug',
        'forward.targets.<name>.url',
        'alerts.channels.<name>.host',
        'alerts.mute[].weekdays',
        'listener.tls.certFile',
      ]),
    )
    expect(configKeys().find((k) => k.key === 'listener.port')).toMatchObject({
      type: 'integer',
      default: '7421',
    })
  })
})
