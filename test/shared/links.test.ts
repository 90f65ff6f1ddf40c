import { describe, expect, it } from 'vitest'
import { alertTarget, consoleLink, linkHash, parseLinkHash } from '../../src/shared/links'
import { deepLinkInArgv, deepLinkRoute } from '../../src/main/desktop/deep-link'
import { alertNotification } from '../../src/main/desktop/notifications'

describe('links into the console', () => {
  it('round-trips every target through its hash', () => {
    for (const target of [
      { view: 'events', eventId: 'evt_01HZ/odd id' },
      { view: 'chains', serviceId: 137 },
      { view: 'alerts', incidentId: 12 },
      { view: 'settings' },
    ] as const)
      expect(parseLinkHash(linkHash(target))).toEqual(target)
  })

  it('opens the Overview for an unknown or malformed hash, and the view for a partial one', () => {
    expect(parseLinkHash('#/nowhere/1')).toEqual({ view: 'overview' })
    expect(parseLinkHash('')).toEqual({ view: 'overview' })
    expect(parseLinkHash('#/events/%E0%A4%A')).toEqual({ view: 'events' })
    expect(parseLinkHash('#/chains/abc')).toEqual({ view: 'chains' })
    expect(parseLinkHash('#/alerts/incident/')).toEqual({ view: 'alerts' })
  })

  it('points an alert at its event, else its incident, else its chain', () => {
    expect(alertTarget({ subject: 'event:evt_1', serviceId: null, incidentId: null })).toEqual({
      view: 'events',
      eventId: 'evt_1',
    })
    expect(alertTarget({ subject: 'chain:137', serviceId: 137, incidentId: 4 })).toEqual({
      view: 'alerts',
      incidentId: 4,
    })
    expect(alertTarget({ subject: 'chain:137', serviceId: 137, incidentId: null })).toEqual({
      view: 'chains',
      serviceId: 137,
    })
  })

  it('builds links on a base without its query (a token never rides along)', () => {
    expect(consoleLink('http://127.0.0.1:7420/?token=abc', { view: 'chains', serviceId: 1 })).toBe(
      'http://127.0.0.1:7420/#/chains/1',
    )
    expect(consoleLink('https://ops.example/watchdesk', { view: 'alerts', incidentId: 3 })).toBe(
      'https://ops.example/watchdesk/#/alerts/incident/3',
    )
  })

  it('takes a deep link from a second launch’s arguments, rebuilt to a known shape', () => {
    expect(deepLinkInArgv(['/opt/watchdesk', '--flag', 'watchdesk://open/#/events/evt_9'])).toBe(
      '#/events/evt_9',
    )
    expect(deepLinkInArgv(['/opt/watchdesk'])).toBeNull()
    expect(deepLinkRoute("watchdesk://open/#/events/x');alert(1)//")).toBe(
      `#/events/${encodeURIComponent("x');alert(1)//")}`,
    )
    expect(deepLinkRoute('https://example.com/#/events/evt_1')).toBeNull()
  })

  it('gives a desktop notification the same place as the other channels’ links', () => {
    const note = alertNotification({
      t: 0,
      rule: 'event.type',
      subject: 'event:evt_7',
      serviceId: null,
      kind: 'event',
      severity: 'warning',
      title: 'payout.failed',
      body: 'evt_7',
      incidentId: null,
      durationMs: null,
    })
    expect(note.link).toBe('#/events/evt_7')
  })
})
