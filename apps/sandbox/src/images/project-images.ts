import { lstat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Build files at a workspace's root that say which toolchain its project needs, and the
 * catalogue id of the image that has it. Checked in this order: a workspace holding both a
 * Cargo.toml and a go.mod gets rust. A marker whose image the admin did not catalogue is skipped.
 */
export const PROJECT_IMAGE_MARKERS: readonly { file: string; imageId: string }[] = [
  { file: 'Cargo.toml', imageId: 'rust' },
  { file: 'go.mod', imageId: 'go' },
  { file: 'pom.xml', imageId: 'java' },
  { file: 'build.gradle', imageId: 'java' },
  { file: 'build.gradle.kts', imageId: 'java' },
];

/**
 * The first marker present at the root of the workspace whose image is catalogued. Only regular
 * files count: a link is not followed (the workspace is the user's, and this process may read
 * what runs may not).
 */
export async function projectImage(
  workspaceRoot: string,
  catalogued: (id: string) => boolean,
): Promise<{ file: string; imageId: string } | undefined> {
  for (const marker of PROJECT_IMAGE_MARKERS) {
    if (!catalogued(marker.imageId)) continue;
    if (await isRegularFile(join(workspaceRoot, marker.file))) return marker;
  }
  return undefined;
}

async function isRegularFile(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isFile();
  } catch {
    // Missing or unreadable: the project does not name this toolchain.
    return false;
  }
}
