import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { provideBackend } from '../../src/renderer/src/api'
import { followPageStores, pageStores } from '../../src/renderer/src/lifecycle'
import { useAlertsStore } from '../../src/renderer/src/stores/alerts'
import { useSourcesStore } from '../../src/renderer/src/stores/sources'
import type { Incident } from '../../src/shared/contract/alerts'
import type { SourceStatus } from '../../src/shared/contract/sources'
import { connectedClient } from './helpers'
import { waitFor } from '../support/wait'

/** Issue 33.5: every renderer store that shows what the back end holds attaches and resyncs
 * through one list (lifecycle.ts), so after a back-end restart none keeps showing what it had. */

const initialAlerts = useAlertsStore.getInitialState()
const initialSources = useSourcesStore.getInitialState()

/** A back end whose answers the test changes, as a restarted one may answer differently. */
function restartableBackend() {
  const answers = {
    open: [{ id: 1 }] as unknown as Incident[],
    sources: [{ name: 'relay-a' }] as unknown as SourceStatus[],
  }
  const setup = connectedClient((name) => {
    if (name === 'alerts.incidents') return { incidents: answers.open }
    if (name === 'alerts.log') return { records: [] }
    if (name === 'alerts.mutes') return { mutes: [] }
    if (name === 'sources.list') return { sources: answers.sources }
    return {}
  })
  provideBackend(setup.client)
  const called = (method: string) => setup.script.calls.filter((c) => c.name === method).length
  /** The stream drops and comes back: the client's resync. */
  const restart = () => {
    setup.script.beat()
    setup.script.dropped('the back end restarted')
    setup.script.opened()
  }
  return { ...setup, answers, called, restart }
}

beforeEach(() => {
  useAlertsStore.setState(initialAlerts, true)
  useSourcesStore.setState(initialSources, true)
})

describe('the renderer stores after a back-end restart', () => {
  it('the alerts and sources stores reload what they show', async () => {
    const b = restartableBackend()
    const page = followPageStores(b.client)
    await useAlertsStore.getState().loadOpen()
    await useSourcesStore.getState().load()
    expect(useAlertsStore.getState().open).toHaveLength(1)
    expect(useSourcesStore.getState().sources).toHaveLength(1)

    b.answers.open = [{ id: 1 }, { id: 2 }] as unknown as Incident[]
    b.answers.sources = [] as SourceStatus[]
    b.restart()
    await waitFor(() => useAlertsStore.getState().open?.length === 2, 'the open incidents reloaded')
    await waitFor(() => useSourcesStore.getState().sources?.length === 0, 'the sources reloaded')
    page.dispose()
  })

  it('a store nothing loaded yet stays unloaded (a view loads it when it opens)', async () => {
    const b = restartableBackend()
    const page = followPageStores(b.client)
    b.restart()
    await waitFor(() => b.called('app.health') > 0, 'the resync (the app store reloads)')
    expect(b.called('sources.list')).toBe(0)
    expect(b.called('alerts.incidents')).toBe(0)
    page.dispose()
  })

  it('follows alerts.changed and sources.status through the list, and stops when disposed', async () => {
    const b = restartableBackend()
    const page = followPageStores(b.client)
    await useAlertsStore.getState().loadOpen()
    b.answers.open = [] as Incident[]
    b.script.push({ topic: 'alerts.changed', payload: {} } as never)
    await waitFor(
      () => useAlertsStore.getState().open?.length === 0,
      'the open incidents reloaded on the push',
    )
    b.script.push({ topic: 'sources.status', payload: { sources: b.answers.sources } } as never)
    expect(useSourcesStore.getState().sources).toHaveLength(1)
    page.dispose()
    b.script.push({ topic: 'sources.status', payload: { sources: [] } } as never)
    expect(useSourcesStore.getState().sources).toHaveLength(1)
  })

  it('lists every store that talks to the back end', () => {
    const renderer = join(import.meta.dirname, '..', '..', 'src', 'renderer', 'src')
    const files = [
      ...readdirSync(join(renderer, 'stores')).map((f) => join(renderer, 'stores', f)),
      ...readdirSync(join(renderer, 'components'), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => join(renderer, 'components', d.name, 'store.ts'))
        .filter((f) => {
          try {
            readFileSync(f)
            return true
          } catch {
            return false
          }
        }),
    ]
    const talking = files
      .filter((f) => f.endsWith('.ts') && readFileSync(f, 'utf8').includes('backend()'))
      .map((f) => (f.endsWith('store.ts') ? f.split('/').at(-2)! : f.split('/').at(-1)!.replace(/\.ts$/, '')))
    expect(talking.length).toBeGreaterThanOrEqual(8)
    expect(pageStores.map((s) => s.name).sort()).toEqual(talking.sort())
  })
})
