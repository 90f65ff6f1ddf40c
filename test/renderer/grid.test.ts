import { describe, expect, it } from 'vitest'
import { gridTarget } from '../../src/renderer/src/components/grid'

describe('grid keyboard movement', () => {
  it('moves one row with the arrows, stopping at both ends', () => {
    expect(gridTarget('ArrowDown', 3, 10)).toBe(4)
    expect(gridTarget('ArrowDown', 9, 10)).toBe(9)
    expect(gridTarget('ArrowUp', 3, 10)).toBe(2)
    expect(gridTarget('ArrowUp', 0, 10)).toBe(0)
    expect(gridTarget('ArrowDown', -1, 10)).toBe(0) // nothing focused yet: the first row
  })

  it('jumps a page or to either end, and ignores other keys and empty grids', () => {
    expect(gridTarget('PageDown', 3, 100, 20)).toBe(23)
    expect(gridTarget('PageDown', 95, 100, 20)).toBe(99)
    expect(gridTarget('PageUp', 5, 100, 20)).toBe(0)
    expect(gridTarget('Home', 50, 100)).toBe(0)
    expect(gridTarget('End', 0, 100)).toBe(99)
    expect(gridTarget('a', 3, 10)).toBeNull()
    expect(gridTarget('ArrowDown', 0, 0)).toBeNull()
  })
})
