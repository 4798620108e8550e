/**
 * A ref that focuses its element when it appears (a confirmation's button, a field just opened),
 * so a keyboard user is not left on a control that went away. Stable, so React calls it once.
 */
export function focusOnMount(element: HTMLElement | null): void {
  element?.focus();
}
