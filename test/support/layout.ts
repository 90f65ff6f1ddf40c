import type { Locator, Page } from 'playwright-core'

/** The elements matching `selector` whose content is cut: wider than their box (scrollWidth >
 * clientWidth, text-overflow or overflow hidden) — named by their text, so a failure says which. */
export function clippedCells(page: Page | Locator, selector: string): Promise<string[]> {
  return page
    .locator(selector)
    .evaluateAll((cells) =>
      cells
        .filter((cell) => cell.scrollWidth > cell.clientWidth + 0.5)
        .map((cell) => `${cell.textContent?.trim() ?? ''} (${cell.scrollWidth} > ${cell.clientWidth})`),
    )
}

/** Whether the element lies wholly inside the viewport (visible without scrolling). */
export async function inFirstScreen(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    const box = el.getBoundingClientRect()
    return (
      box.height > 0 &&
      box.top >= 0 &&
      box.left >= 0 &&
      box.bottom <= window.innerHeight &&
      box.right <= window.innerWidth
    )
  })
}
