// @vitest-environment happy-dom
import { createElement } from 'react'
import { cleanup, fireEvent, render } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { ReplayControl } from '../../src/renderer/src/components/forward/ReplayControl'
import { useForwardStore } from '../../src/renderer/src/components/forward/store'
import { ViewBoundary } from '../../src/renderer/src/components/ViewBoundary'

describe('Replay N events to…', () => {
  afterEach(cleanup)

  // Before forward.status has arrived the store holds no status. A selector that answered a fresh
  // [] each time made React re-render without end (error #185): the whole console went blank
  // whenever the Events view drew before that answer, as it did on a loaded machine.
  it('renders before the forward status has arrived (no render loop)', () => {
    useForwardStore.setState({ status: null })
    const { getByRole, queryAllByRole } = render(
      createElement(ReplayControl, { label: 'Replay 8 events to…', count: 8 }),
    )
    expect(getByRole('button').textContent).toBe('Replay 8 events to…')
    expect(queryAllByRole('option')).toHaveLength(0)
  })
})

describe('the Replay bar', () => {
  afterEach(cleanup)

  // The example URL used to be the input's value: pressing Replay at once sent every event there.
  it('shows the example URL as a placeholder and replays nothing until a URL is typed', () => {
    useForwardStore.setState({ status: null })
    const { getByRole, getByLabelText } = render(
      createElement(ReplayControl, { label: 'Replay 8 events to…', count: 8 }),
    )
    fireEvent.click(getByRole('button', { name: 'Replay 8 events to…' }))
    const url = getByLabelText('Replay URL') as HTMLInputElement
    expect(url.value).toBe('')
    expect(url.placeholder).toBe('http://localhost:3000/webhooks')
    expect((getByRole('button', { name: 'Replay' }) as HTMLButtonElement).disabled).toBe(true)
    fireEvent.change(url, { target: { value: 'http://127.0.0.1:9/hook' } })
    expect((getByRole('button', { name: 'Replay' }) as HTMLButtonElement).disabled).toBe(false)
  })
})

describe('a view that throws while drawing', () => {
  afterEach(cleanup)

  it('is replaced by a sentence naming the view, not a blank console', () => {
    const Broken = () => {
      throw new Error('no targets')
    }
    const quiet = console.error
    console.error = () => {}
    try {
      const { getByRole } = render(
        createElement(ViewBoundary, { view: 'Events', children: createElement(Broken) }),
      )
      expect(getByRole('alert').textContent).toMatch(/^The Events view failed to draw \(no targets\)\./)
    } finally {
      console.error = quiet
    }
  })
})
