import { afterEach, describe, expect, it } from 'vitest'
import { provideBackend } from '../../src/renderer/src/api'
import { maxKnownStates, useForwardStore } from '../../src/renderer/src/components/forward/store'
import type { Disposable } from '../../src/shared/disposable'
import { connectedClient } from './helpers'

const owned: Disposable[] = []
afterEach(() => owned.splice(0).forEach((d) => d.dispose()))

describe('forward states on screen', () => {
  it(`keeps the ${maxKnownStates} most recently learned states, not one for every event a long day showed`, () => {
    const setup = connectedClient(async () => ({}))
    provideBackend(setup.client)
    setup.script.opened()
    owned.push(setup.connection, useForwardStore.getState().attach())
    // A day of pushes: each tells the states of 500 newly forwarded events.
    for (let push = 0; push < 20; push++) {
      const states = Object.fromEntries(
        Array.from({ length: 500 }, (_, i) => [`evt_${push}_${i}`, 'delivered' as const]),
      )
      setup.script.push({ topic: 'forward.states', payload: { states } })
    }
    const { states, versions } = useForwardStore.getState()
    expect(Object.keys(states)).toHaveLength(maxKnownStates)
    expect(Object.keys(versions)).toHaveLength(maxKnownStates)
    // The newest are the ones kept.
    expect(states['evt_19_499']).toBe('delivered')
    expect(states['evt_0_0']).toBeUndefined()
  })
})
