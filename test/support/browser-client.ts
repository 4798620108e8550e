/** One response the browser saw on its way. */
export interface Hop {
  url: string;
  status: number;
  location: string | null;
  setCookies: string[];
}

/**
 * A browser without a screen: keeps cookies per host (honouring Max-Age=0 and Path), follows
 * redirects one hop at a time so a test can see every step, and posts HTML forms.
 */
export class BrowserClient {
  private readonly jar = new Map<string, Map<string, { value: string; path: string }>>();
  readonly hops: Hop[] = [];

  /** Follows redirects from `url`; the last response, its text read. */
  async go(
    url: string,
    init: { method?: string; body?: URLSearchParams | string; headers?: Record<string, string>; stopBefore?: string } = {},
  ): Promise<{ url: string; status: number; text: string; headers: Headers }> {
    let current = url;
    let method = init.method ?? 'GET';
    let body: URLSearchParams | string | undefined = init.body;
    for (let hop = 0; hop < 20; hop++) {
      const response = await fetch(current, { method, body, headers: { ...init.headers, ...this.cookieHeader(current) }, redirect: 'manual' });
      const setCookies = response.headers.getSetCookie();
      this.store(current, setCookies);
      const location = response.headers.get('location');
      this.hops.push({ url: current, status: response.status, location, setCookies });
      if (response.status < 300 || response.status >= 400 || !location) return { url: current, status: response.status, text: await response.text(), headers: response.headers };
      await response.body?.cancel();
      current = new URL(location, current).href;
      // Not followed: the test takes the URL (a provider's redirect back) and tampers with it.
      if (init.stopBefore && current.startsWith(init.stopBefore)) return { url: current, status: 0, text: '', headers: response.headers };
      method = 'GET';
      body = undefined;
    }
    throw new Error(`more than 20 redirects from ${url}`);
  }

  /** Submits the page's first form with these fields. */
  async submitForm(page: { url: string; text: string }, fields: Record<string, string>, stopBefore?: string) {
    const action = /<form[^>]*action="([^"]+)"/.exec(page.text)?.[1];
    if (!action) throw new Error(`no form on ${page.url}: ${page.text.slice(0, 300)}`);
    return this.go(new URL(action.replace(/&amp;/g, '&'), page.url).href, {
      method: 'POST',
      body: new URLSearchParams(fields),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      ...(stopBefore ? { stopBefore } : {}),
    });
  }

  cookie(url: string, name: string): string | undefined {
    return this.jar.get(new URL(url).host)?.get(name)?.value;
  }

  setCookie(url: string, name: string, value: string): void {
    const host = new URL(url).host;
    const cookies = this.jar.get(host) ?? new Map<string, { value: string; path: string }>();
    cookies.set(name, { value, path: '/' });
    this.jar.set(host, cookies);
  }

  cookieHeader(url: string): Record<string, string> {
    const { host, pathname } = new URL(url);
    const cookies = [...(this.jar.get(host) ?? new Map<string, { value: string; path: string }>()).entries()].filter(([, c]) => pathname.startsWith(c.path));
    return cookies.length === 0 ? {} : { cookie: cookies.map(([name, c]) => `${name}=${c.value}`).join('; ') };
  }

  private store(url: string, setCookies: string[]): void {
    const host = new URL(url).host;
    const cookies = this.jar.get(host) ?? new Map<string, { value: string; path: string }>();
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      const [name, value] = [pair.slice(0, eq), pair.slice(eq + 1)];
      const path = attributes.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const expired = attributes.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && Date.parse(a.slice(8)) <= Date.now()));
      if (expired) cookies.delete(name);
      else cookies.set(name, { value, path });
    }
    this.jar.set(host, cookies);
  }
}
