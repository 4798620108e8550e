import { readFile, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { SandboxConfig } from '@weft/config';
import { AppError, ErrorCode, type ResolvedSandboxImage, type SandboxImages } from '@weft/contracts';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { projectImage } from './project-images';

/** Where a workspace picks its image: `{ "sandboxImage": "<catalogue id>" }`. */
export const WORKSPACE_SETTINGS_FILE = '.weft/settings.json';
/** The devcontainer convention: its `image` is used when the catalogue holds it. */
export const DEVCONTAINER_FILE = '.devcontainer/devcontainer.json';
/** Settings files are a few lines; a bigger one is not read. */
const SETTINGS_MAX_BYTES = 64 * 1024;

export interface ResolvedImage {
  /** The catalogue id. */
  id: string;
  /** The image reference the engine runs. */
  image: string;
  /** What chose it. */
  source: ResolvedSandboxImage['source'];
  /** The workspace file that chose it (settings, devcontainer or a project's build file). */
  file?: string;
}

/**
 * The admin's catalogue of images commands may run in (SANDBOX_IMAGES), and the choice of one
 * for a run: the session's, else the workspace's `.weft/settings.json`, else its devcontainer's
 * image when catalogued, else the image of the toolchain its build files name (`Cargo.toml`:
 * rust, `go.mod`: go, `pom.xml`/`build.gradle`: java) when catalogued, else the default. An id
 * that is not in the catalogue is refused.
 */
export class ImageCatalogue {
  constructor(private readonly config: Pick<SandboxConfig, 'SANDBOX_IMAGES' | 'SANDBOX_DEFAULT_IMAGE'>) {}

  list(): SandboxImages {
    return {
      default: this.config.SANDBOX_DEFAULT_IMAGE,
      images: Object.entries(this.config.SANDBOX_IMAGES).map(([id, image]) => ({ id, image })),
    };
  }

  /** `workspaceRoot` is this process's view of the workspace, for its settings files. */
  async resolve(requested: string | undefined, workspaceRoot: string | undefined): Promise<ResolvedImage> {
    if (requested !== undefined) return { ...this.byId(requested, 'the session'), source: 'request' };
    if (workspaceRoot !== undefined) {
      const settings = await readJsonc(workspaceRoot, WORKSPACE_SETTINGS_FILE);
      const chosen = settings?.sandboxImage;
      if (chosen !== undefined) {
        if (typeof chosen !== 'string') throw unknownImage(String(chosen), WORKSPACE_SETTINGS_FILE, this.ids());
        return { ...this.byId(chosen, WORKSPACE_SETTINGS_FILE), source: 'settings', file: WORKSPACE_SETTINGS_FILE };
      }
      const devcontainer = await readJsonc(workspaceRoot, DEVCONTAINER_FILE);
      const found = typeof devcontainer?.image === 'string' ? this.byReference(devcontainer.image) : undefined;
      if (found) return { ...found, source: 'devcontainer', file: DEVCONTAINER_FILE };
      const project = await projectImage(workspaceRoot, (id) => Object.hasOwn(this.config.SANDBOX_IMAGES, id));
      if (project) return { ...this.byId(project.imageId, project.file), source: 'project', file: project.file };
    }
    return { ...this.byId(this.config.SANDBOX_DEFAULT_IMAGE, 'SANDBOX_DEFAULT_IMAGE'), source: 'default' };
  }

  private byId(id: string, chosenIn: string): Omit<ResolvedImage, 'source'> {
    const image = this.config.SANDBOX_IMAGES[id];
    if (image === undefined) throw unknownImage(id, chosenIn, this.ids());
    return { id, image };
  }

  /** A devcontainer names an image reference; the catalogue id or the reference both match. */
  private byReference(reference: string): Omit<ResolvedImage, 'source'> | undefined {
    const entry = Object.entries(this.config.SANDBOX_IMAGES).find(([id, image]) => image === reference || id === reference);
    return entry ? { id: entry[0], image: entry[1] } : undefined;
  }

  private ids(): string[] {
    return Object.keys(this.config.SANDBOX_IMAGES);
  }
}

function unknownImage(id: string, chosenIn: string, allowed: string[]): AppError {
  return new AppError(
    ErrorCode.SandboxImageUnknown,
    `Sandbox image "${id}" (from ${chosenIn}) is not in this server's catalogue; allowed: ${allowed.join(', ')}`,
    { image: id, allowed },
  );
}

/**
 * An object read from a JSON-with-comments file of the workspace; undefined when it is missing,
 * not an object, or a link that leaves the workspace (this process may read what runs may not).
 */
async function readJsonc(root: string, file: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    const [realRoot, real] = await Promise.all([realpath(root), realpath(join(root, file))]);
    if (!real.startsWith(realRoot + sep)) return undefined;
    const buffer = await readFile(real);
    if (buffer.length > SETTINGS_MAX_BYTES) return undefined;
    text = buffer.toString('utf8');
  } catch {
    // Missing, a folder, or unreadable: the workspace simply does not choose.
    return undefined;
  }
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
  if (errors.length > 0 || value === null || typeof value !== 'object' || Array.isArray(value)) {
    if (file === WORKSPACE_SETTINGS_FILE) {
      throw new AppError(ErrorCode.ValidationFailed, `${WORKSPACE_SETTINGS_FILE} is not a JSON object`, { file: WORKSPACE_SETTINGS_FILE });
    }
    return undefined;
  }
  return value as Record<string, unknown>;
}
