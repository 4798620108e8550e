import { describe, expect, it } from 'vitest';
import { splitToolFolders } from './tool-folders';

const dir = (name: string) => ({ name, type: 'directory' });
const file = (name: string) => ({ name, type: 'file' });

describe("the tree's tool folders", () => {
  it(".weft and test, package and bytecode caches go apart from the project's files, in their order", () => {
    const { project, tools } = splitToolFolders([dir('.pytest_cache'), dir('.weft'), dir('src'), dir('__pycache__'), dir('pkg.egg-info'), file('README.md')]);
    expect(project.map((e) => e.name)).toEqual(['src', 'README.md']);
    expect(tools.map((e) => e.name)).toEqual(['.pytest_cache', '.weft', '__pycache__', 'pkg.egg-info']);
  });

  it('keeps a file that happens to share a cache folder name with the project', () => {
    expect(splitToolFolders([file('.weft'), file('node_modules')]).tools).toEqual([]);
  });
});
