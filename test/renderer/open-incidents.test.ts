import { beforeEach, describe, expect, it } from 'vitest'
import { provideBackend } from '../../src/renderer/src/api'
import { followPageStores } from '../../src/renderer/src/lifecycle'
import { useAlertsStore } from '../../src/renderer/src/stores/alerts'
import type { Incident } from '../../src/shared/contract/alerts'
import { connectedClient } from './helpers'
import { waitFor } from '../support/wait'

/** The open incidents (the sidebar's count, the Overview's tile) are asked for once when a page
 * starts on the Overview: the App asks at start and the Overview, opening at the same moment, takes
 * that answer instead of a second request (every load of the console paid for both). */

const initialAlerts = useAlertsStore.getInitialState()

function backendWithOpenIncidents() {
  const answers = { open: [{ id: 1 }] as unknown as Incident[], fail: false }
  const held: (() => void)[] = []
  const setup = connectedClient(async (name) => {
    if (name !== 'alerts.incidents') return {}
    if (answers.fail)
      return { ok: false, error: { code: 'unavailable', message: 'The back end is not reachable.' } }
    // Held until the test lets it through, so a second caller meets the first request under way.
    await new Promise<void>((r) => held.push(r))
    return { incidents: answers.open }
  })
  provideBackend(setup.client)
  const asked = () => setup.script.calls.filter((c) => c.name === 'alerts.incidents').length
  /** Answers every request under way (after the first has arrived). */
  const answer = async () => {
    await waitFor(() => held.length > 0, 'a request for the open incidents')
    for (const r of held.splice(0)) r()
  }
  return { ...setup, answers, asked, answer }
}

beforeEach(() => useAlertsStore.setState(initialAlerts, true))

describe('the open incidents at the page start', () => {
  it('are asked for once when the App and the Overview both want them at start', async () => {
    const b = backendWithOpenIncidents()
    // React runs the Overview's effect before the App's (children first); either may come first.
    const overview = useAlertsStore.getState().ensureOpen()
    const app = useAlertsStore.getState().ensureOpen()
    await b.answer()
    await Promise.all([overview, app])
    expect(b.asked()).toBe(1)
    expect(useAlertsStore.getState().open).toHaveLength(1)
    // Shown already: opening the Overview again asks nothing (pushes keep them current).
    await useAlertsStore.getState().ensureOpen()
    expect(b.asked()).toBe(1)
  })

  it('are asked for again when the first answer failed', async () => {
    const b = backendWithOpenIncidents()
    b.answers.fail = true
    await useAlertsStore.getState().loadOpen()
    expect(useAlertsStore.getState().open).toBeNull()
    b.answers.fail = false
    const overview = useAlertsStore.getState().ensureOpen()
    await b.answer()
    await overview
    expect(b.asked()).toBe(2)
    expect(useAlertsStore.getState().open).toHaveLength(1)
  })

  it('are still reloaded on alerts.changed while shown', async () => {
    const b = backendWithOpenIncidents()
    const page = followPageStores(b.client)
    const first = useAlertsStore.getState().ensureOpen()
    await b.answer()
    await first
    b.answers.open = [] as Incident[]
    b.script.push({ topic: 'alerts.changed', payload: {} } as never)
    await b.answer()
    await waitFor(
      () => useAlertsStore.getState().open?.length === 0,
      'the open incidents reloaded on the push',
    )
    expect(b.asked()).toBe(2)
    page.dispose()
  })
})
