import { useEffect } from 'react'
import { StatusBadge } from '../Status'
import { stateLabel, stateTone, useForwardStore } from './store'

/** The forward state of one event in its own narrow column: nothing when no target takes it. */
export function ForwardStateMark({ id }: { id: string }) {
  const state = useForwardStore((s) => s.states[id])
  const want = useForwardStore((s) => s.want)
  useEffect(() => want(id), [id, state, want])
  if (state === undefined || state === 'none') return null
  return (
    <StatusBadge tone={stateTone[state]} label={stateLabel[state]} title={`Forward: ${stateLabel[state]}`} />
  )
}
