/** The API key lives in this browser's localStorage, for this origin only, until "Sign out". */
const KEY = 'weft.apiKey';

export function loadKey(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null; // storage blocked (private mode settings): the user logs in each time
  }
}

export function saveKey(key: string): void {
  try {
    localStorage.setItem(KEY, key);
  } catch {
    // not persisted: the session still works until the page closes
  }
}

export function forgetKey(): void {
  try {
    localStorage.removeItem(KEY);
  } catch {
    // nothing stored, nothing to remove
  }
}
