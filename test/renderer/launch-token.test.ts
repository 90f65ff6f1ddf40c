import { afterEach, describe, expect, it } from 'vitest'
import { clientForPage, takeLaunchToken } from '../../src/renderer/src/api/client'
import type { WatchdeskBridge } from '../../src/shared/contract/bridge'
import { noopDisposable } from '../../src/shared/disposable'

afterEach(() => {
  window.sessionStorage.clear()
  window.history.replaceState(null, '', '/')
  delete window.watchdesk
})

describe('launch token', () => {
  it('takes the token out of the address bar, keeping the rest of the URL, and keeps it for the tab', () => {
    window.history.replaceState(null, '', '/?view=x&token=tok%2Fabc#/events')
    const token = takeLaunchToken(window.location, window.sessionStorage, window.history)
    expect(token).toBe('tok/abc')
    expect(window.location.search).toBe('?view=x')
    expect(window.location.hash).toBe('#/events')
    expect(window.location.href).not.toContain('tok')
    expect(window.sessionStorage.getItem('watchdesk.token')).toBe('tok/abc')
  })

  it('finds the kept token after a reload without it, and a newer one in the URL wins', () => {
    window.sessionStorage.setItem('watchdesk.token', 'kept')
    window.history.replaceState(null, '', '/#/chains')
    expect(takeLaunchToken(window.location, window.sessionStorage, window.history)).toBe('kept')
    expect(window.location.hash).toBe('#/chains')
    window.history.replaceState(null, '', '/?token=newer')
    expect(takeLaunchToken(window.location, window.sessionStorage, window.history)).toBe('newer')
    expect(window.sessionStorage.getItem('watchdesk.token')).toBe('newer')
    expect(window.location.search).toBe('')
  })

  it('gives no client to a tab without a token, HTTP with one, and IPC in the desktop app', () => {
    window.history.replaceState(null, '', '/')
    expect(clientForPage(window)).toBeNull()
    window.history.replaceState(null, '', '/?token=abc')
    expect(clientForPage(window)?.transport).toBe('http')
    window.watchdesk = { methods: {} as WatchdeskBridge['methods'], onPush: () => noopDisposable }
    expect(clientForPage(window)?.transport).toBe('ipc')
  })
})
