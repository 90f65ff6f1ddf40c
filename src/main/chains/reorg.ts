import type { Reorg } from '../../shared/contract/chains'

export interface BlockRef {
  number: number
  hash: string
  parentHash: string | null
}

/** Heights remembered to notice a changed hash: deeper reorganisations are reported at this depth. */
const remembered = 128

/** Remembers the hashes of recent heads (and their parents). When the block at a known height
 * comes back with another hash, the chain reorganised: the depth is the number of known heights
 * whose hash changed, found by walking back until an old hash matches again. */
export class ReorgWatch {
  private readonly hashes = new Map<number, string>()
  private lastReorg: Reorg | null = null
  private seen = 0

  last(): Reorg | null {
    return this.lastReorg
  }

  count(): number {
    return this.seen
  }

  /** Records whether the references hold the service node's new block (see Reorg). */
  corroborate(seenByReferences: boolean | null): void {
    if (this.lastReorg) this.lastReorg = { ...this.lastReorg, seenByReferences }
  }

  async observe(
    block: BlockRef,
    t: number,
    hashAt: (height: number) => Promise<string | null>,
  ): Promise<Reorg | null> {
    let lowest: number | null = null
    const known = this.hashes.get(block.number)
    if (known !== undefined && known !== block.hash) lowest = block.number
    else if (block.parentHash !== null) {
      const parent = this.hashes.get(block.number - 1)
      if (parent !== undefined && parent !== block.parentHash) lowest = block.number - 1
    }
    let found: Reorg | null = null
    if (lowest !== null) {
      const highestKnown = Math.max(...this.hashes.keys())
      for (let h = lowest - 1; this.hashes.has(h) && lowest - h <= remembered; h--) {
        const now = await hashAt(h)
        if (now === null || now === this.hashes.get(h)) break
        lowest = h
      }
      const depth = Math.min(highestKnown, Math.max(block.number, lowest)) - lowest + 1
      found = { depth, height: lowest, at: new Date(t).toISOString(), seenByReferences: null }
      this.lastReorg = found
      this.seen += 1
      for (const h of [...this.hashes.keys()]) if (h >= lowest) this.hashes.delete(h)
    }
    this.hashes.set(block.number, block.hash)
    if (block.parentHash !== null) this.hashes.set(block.number - 1, block.parentHash)
    for (const h of this.hashes.keys()) if (h <= block.number - remembered) this.hashes.delete(h)
    return found
  }
}
