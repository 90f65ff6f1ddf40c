import { useEffect, useState } from 'react'
import { create } from 'zustand'
import type { ViewId } from '../../../shared/views'

/** Which view has its first data on screen. The shell writes it as `data-view-ready` on the
 * content area, so a test (or a screen reader's automation) waits for the data, not for a guess
 * at how long loading takes. A view id rather than a flag: on a route change the new view is
 * never taken for ready on the strength of the old one. */
export const useReadyView = create<{ view: ViewId | null }>(() => ({ view: null }))

/** Marks `view` as loaded while `ready` holds (its data, or an error in its place, has arrived). */
export function useViewReady(view: ViewId, ready: boolean): void {
  useEffect(() => {
    if (!ready) return
    useReadyView.setState({ view })
    return () => {
      if (useReadyView.getState().view === view) useReadyView.setState({ view: null })
    }
  }, [view, ready])
}

/** Runs `load` when the view opens and says once it has settled (answered or failed). */
export function useFirstLoad(load: () => Promise<unknown>): boolean {
  const [settled, setSettled] = useState(false)
  useEffect(() => {
    let open = true
    void load().finally(() => {
      if (open) setSettled(true)
    })
    return () => {
      open = false
    }
  }, [load])
  return settled
}
