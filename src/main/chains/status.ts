import type { ChainStatus, Corroboration, TagLag } from '../../shared/contract/chains'
import { unknownTag } from './checks/extras'

/** The parts of a chain's status that do not come from one poll's measurements. */

export type Measurement = Pick<
  ChainStatus,
  'blockAgeSeconds' | 'blockAgeSource' | 'lagBlocks' | 'lagSeconds' | 'lagEstimated' | 'referenceHead'
>

/** Before the first good poll, and while a chain is down: nothing measured. */
export const noMeasurement: Measurement = {
  blockAgeSeconds: null,
  blockAgeSource: null,
  lagBlocks: null,
  lagSeconds: null,
  lagEstimated: true,
  referenceHead: null,
}

/** What a down chain still shows from its last good poll: the head it had reached. Every live
 * figure goes blank rather than show stale values. */
export function carried(
  previous: ChainStatus,
): Pick<ChainStatus, 'head' | 'finalized' | 'safe' | 'syncing' | 'peers' | 'peersNote'> & Measurement {
  const blank = (tag: TagLag): TagLag => ({ ...unknownTag, supported: tag.supported })
  return {
    finalized: blank(previous.finalized),
    safe: blank(previous.safe),
    syncing: null,
    peers: null,
    peersNote: previous.peersNote,
    head: previous.head,
    ...noMeasurement,
  }
}

export function uncorroborated(
  references: number,
  quorum: number,
  disagreeAfterBlocks: number,
  note: string,
): Corroboration {
  return {
    state: 'estimated',
    head: null,
    quorum,
    counted: 0,
    sources: references + 1,
    disagreeAfterBlocks,
    note,
  }
}
