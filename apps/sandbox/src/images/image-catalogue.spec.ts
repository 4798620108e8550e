import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ImageCatalogue } from './image-catalogue';

const IMAGES = {
  dev: 'weft/sandbox-dev:latest',
  go: 'weft/sandbox-go:latest',
  rust: 'weft/sandbox-rust:latest',
  java: 'weft/sandbox-java:latest',
};
const catalogue = new ImageCatalogue({ SANDBOX_IMAGES: IMAGES, SANDBOX_DEFAULT_IMAGE: 'dev' });

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'weft-catalogue-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function put(path: string, content = ''): Promise<void> {
  await mkdir(join(root, path, '..'), { recursive: true });
  await writeFile(join(root, path), content);
}

describe("a workspace's image chosen from its project's build files", () => {
  it.each([
    ['Cargo.toml', 'rust'],
    ['go.mod', 'go'],
    ['pom.xml', 'java'],
    ['build.gradle', 'java'],
    ['build.gradle.kts', 'java'],
  ])('%s picks the %s image', async (file, id) => {
    await put(file);
    expect(await catalogue.resolve(undefined, root)).toEqual({ id, image: IMAGES[id as keyof typeof IMAGES], source: 'project', file });
  });

  it('takes the default when no build file is at the root (a nested one does not count)', async () => {
    await put('tools/Cargo.toml');
    expect(await catalogue.resolve(undefined, root)).toEqual({ id: 'dev', image: IMAGES.dev, source: 'default' });
  });

  it('skips a build file whose image the admin did not catalogue', async () => {
    await put('Cargo.toml');
    await put('go.mod');
    const noRust = new ImageCatalogue({ SANDBOX_IMAGES: { dev: IMAGES.dev, go: IMAGES.go }, SANDBOX_DEFAULT_IMAGE: 'dev' });
    expect(await noRust.resolve(undefined, root)).toMatchObject({ id: 'go', source: 'project', file: 'go.mod' });
    const neither = new ImageCatalogue({ SANDBOX_IMAGES: { dev: IMAGES.dev }, SANDBOX_DEFAULT_IMAGE: 'dev' });
    expect(await neither.resolve(undefined, root)).toMatchObject({ id: 'dev', source: 'default' });
  });

  it('prefers rust over go when a workspace holds both, in the documented order', async () => {
    await put('go.mod');
    await put('Cargo.toml');
    expect(await catalogue.resolve(undefined, root)).toMatchObject({ id: 'rust', file: 'Cargo.toml' });
  });

  it('does not follow a build file that is a link, nor take a folder of that name', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'weft-catalogue-outside-'));
    await writeFile(join(outside, 'Cargo.toml'), '');
    await symlink(join(outside, 'Cargo.toml'), join(root, 'Cargo.toml'));
    await mkdir(join(root, 'go.mod'));
    expect(await catalogue.resolve(undefined, root)).toMatchObject({ id: 'dev', source: 'default' });
    await rm(outside, { recursive: true, force: true });
  });

  it("gives way to the session's image, .weft/settings.json and the devcontainer, naming the file that chose", async () => {
    await put('Cargo.toml');
    expect(await catalogue.resolve('go', root)).toEqual({ id: 'go', image: IMAGES.go, source: 'request' });
    await put('.devcontainer/devcontainer.json', '{ "image": "weft/sandbox-java:latest" }');
    expect(await catalogue.resolve(undefined, root)).toEqual({ id: 'java', image: IMAGES.java, source: 'devcontainer', file: '.devcontainer/devcontainer.json' });
    await put('.weft/settings.json', '{ "sandboxImage": "dev" }');
    expect(await catalogue.resolve(undefined, root)).toEqual({ id: 'dev', image: IMAGES.dev, source: 'settings', file: '.weft/settings.json' });
  });
});
