import { existsSync, globSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

type Root = ReturnType<typeof fromMarkdown>;
type Nodes = Root | Root['children'][number] | Extract<Root['children'][number], { children: unknown[] }>['children'][number];

/** A link in a Markdown file, where it is. */
export interface MarkdownLink {
  url: string;
  line: number;
}

export interface BrokenLink extends MarkdownLink {
  file: string;
  problem: string;
}

/** Links that leave the repository (or are not files): not checked. */
const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;
/** `<a id="...">` and `<a name="...">` in raw HTML: anchors GitHub keeps. */
const HTML_ANCHOR = /<a\s[^>]*\b(?:id|name)\s*=\s*["']([^"']+)["']/gi;

function parse(markdown: string): Root {
  return fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
}

function visit(node: Nodes, each: (node: Nodes) => void): void {
  each(node);
  if ('children' in node) for (const child of node.children) visit(child, each);
}

/** The text of a node as GitHub slugs it: the values of its text and code children. */
function plainText(node: Nodes): string {
  if ('value' in node && node.type !== 'html') return node.value;
  return 'children' in node ? node.children.map((child) => plainText(child)).join('') : '';
}

/** What the link check needs of a document, from one parse. */
export interface MarkdownOutline {
  /** Every link, image and link definition (code blocks are not links). */
  links: MarkdownLink[];
  /** The anchors it has on GitHub: its headings' slugs (duplicates numbered) and HTML ids. */
  anchors: Set<string>;
}

export function outlineOf(markdown: string): MarkdownOutline {
  const slugger = new GithubSlugger();
  const outline: MarkdownOutline = { links: [], anchors: new Set() };
  visit(parse(markdown), (node) => {
    if (node.type === 'link' || node.type === 'image' || node.type === 'definition') {
      outline.links.push({ url: node.url, line: node.position?.start.line ?? 0 });
    }
    if (node.type === 'heading') outline.anchors.add(slugger.slug(plainText(node)));
    if (node.type === 'html') for (const match of node.value.matchAll(HTML_ANCHOR)) outline.anchors.add(match[1] ?? '');
  });
  return outline;
}

export const linksOf = (markdown: string): MarkdownLink[] => outlineOf(markdown).links;
export const anchorsOf = (markdown: string): Set<string> => outlineOf(markdown).anchors;

/** Relative links of the given files (paths from root) whose file or anchor does not exist. */
export function brokenLinks(root: string, files: string[]): BrokenLink[] {
  // Parsing is the slow part: each document once, whether it links or is linked to.
  const outlines = new Map<string, MarkdownOutline>();
  const outline = (path: string): MarkdownOutline => {
    let found = outlines.get(path);
    if (!found) {
      found = outlineOf(readFileSync(path, 'utf8'));
      outlines.set(path, found);
    }
    return found;
  };
  const broken: BrokenLink[] = [];
  for (const file of files) {
    const source = resolve(root, file);
    for (const link of outline(source).links) {
      if (EXTERNAL.test(link.url)) continue;
      const [rawPath = '', rawAnchor] = link.url.split('#', 2);
      const target = rawPath === '' ? source : resolve(dirname(source), decodeURIComponent(rawPath));
      const report = (problem: string) => broken.push({ ...link, file, problem });
      if (!target.startsWith(resolve(root))) {
        report(`${rawPath} leaves the repository`);
      } else if (!existsSync(target)) {
        report(`${relative(root, target)} does not exist`);
      } else if (rawAnchor !== undefined && target.endsWith('.md') && statSync(target).isFile()) {
        const anchor = decodeURIComponent(rawAnchor);
        if (!outline(target).anchors.has(anchor)) report(`${relative(root, target)} has no heading #${anchor}`);
      }
    }
  }
  return broken;
}

/** The documentation whose links must resolve: the README, the contributors' guide and docs/. */
export function documentationFiles(root: string): string[] {
  return ['README.md', 'CONTRIBUTING.md', ...globSync('docs/**/*.md', { cwd: root })].sort();
}

/** One line per broken link, `file:line url: problem`. */
export function formatBroken(broken: BrokenLink[]): string {
  return broken.map((link) => `${join(link.file)}:${link.line} ${link.url}: ${link.problem}`).join('\n');
}
