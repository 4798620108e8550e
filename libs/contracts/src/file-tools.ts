import { z } from 'zod';

/**
 * The file tools served by the tools worker: each declared once, here, with its arguments and
 * the description the model sees. The gateway offers them to the model from this table and the
 * tools worker parses calls with the same schemas.
 */
const path = (what = 'Path relative to the workspace root') => z.string().min(1).describe(what);
const folder = z.string().min(1).default('.').describe('Folder relative to the workspace root; "." for the root');
const includeIgnored = z
  .boolean()
  .default(false)
  .describe('Also show what .gitignore excludes, and the .git and node_modules folders');

export const readFileArgsSchema = z.object({
  path: path(),
  offset: z.number().int().min(1).optional().describe('First line to read, counting from 1'),
  limit: z.number().int().min(1).max(10_000).optional().describe('How many lines to read from offset'),
});
export const writeFileArgsSchema = z.object({
  path: path('Path relative to the workspace root; parent folders are created'),
  content: z.string().describe('The whole new content of the file'),
});
export const fileEditSchema = z.object({
  old: z.string().min(1).describe('Exact text to replace, whitespace included; must occur exactly once in the file'),
  new: z.string().describe('The text that replaces it'),
});
export const editFileArgsSchema = z.object({
  path: path(),
  edits: z.array(fileEditSchema).min(1).max(100).describe('Replacements applied in order, each to the result of the previous'),
});
export const listDirectoryArgsSchema = z.object({
  path: folder,
  recursive: z.boolean().default(false).describe('List every level below the folder, not just the first'),
  includeIgnored,
});
export const searchFilesArgsSchema = z.object({
  pattern: z.string().min(1).describe('Regular expression (Rust regex syntax, as ripgrep) searched line by line'),
  path: folder,
  glob: z.string().min(1).optional().describe('Only files whose path matches this glob, e.g. "**/*.ts"'),
  ignoreCase: z.boolean().default(false).describe('Match without regard to case'),
  maxResults: z.number().int().min(1).max(1000).default(200).describe('Stop after this many matching lines'),
});
export const globArgsSchema = z.object({
  pattern: z.string().min(1).describe('Glob relative to path, e.g. "src/**/*.spec.ts"'),
  path: folder,
  includeIgnored,
});
export const createDirectoryArgsSchema = z.object({
  path: path('Folder to create, relative to the workspace root; missing parents are created'),
});
export const moveFileArgsSchema = z.object({
  from: path('File or folder to move, relative to the workspace root'),
  to: path('New path, relative to the workspace root; missing parent folders are created'),
  overwrite: z.boolean().default(false).describe('Replace a file that already exists at "to"'),
});
export const deleteFileArgsSchema = z.object({
  path: path('File, link or folder to delete, relative to the workspace root'),
  recursive: z.boolean().default(false).describe('Required to delete a folder that is not empty'),
});

export const fileToolSpecs = {
  read_file: {
    description:
      'Read a UTF-8 text file of the workspace. Lines come numbered ("  12\\tcode"); the numbers are not part of the file. ' +
      'Use offset and limit to read part of a long file.',
    parameters: readFileArgsSchema,
  },
  write_file: {
    description: 'Create or replace a file of the workspace with the given content; parent folders are created.',
    parameters: writeFileArgsSchema,
  },
  edit_file: {
    description:
      'Change a file by exact text replacements. Each "old" must occur exactly once in the file (add surrounding lines to ' +
      'make it unique); if any edit fails nothing is written. Returns the change as a unified diff.',
    parameters: editFileArgsSchema,
  },
  list_directory: {
    description:
      'List a folder of the workspace: names, kinds and sizes. Honours .gitignore and skips .git and node_modules unless ' +
      'includeIgnored is set; recursive lists every level.',
    parameters: listDirectoryArgsSchema,
  },
  search_files: {
    description:
      'Search file contents with a regular expression (ripgrep). Returns "path:line: text" for each match, honouring ' +
      '.gitignore; narrow it with path and glob.',
    parameters: searchFilesArgsSchema,
  },
  glob: {
    description: 'Find files whose path matches a glob such as "**/*.py"; returns paths relative to the workspace root.',
    parameters: globArgsSchema,
  },
  create_directory: {
    description: 'Create a folder of the workspace, with any missing parents.',
    parameters: createDirectoryArgsSchema,
  },
  move_file: {
    description: 'Move or rename a file or folder inside the workspace.',
    parameters: moveFileArgsSchema,
  },
  delete_file: {
    description: 'Delete a file or symbolic link of the workspace; a folder with content needs recursive: true.',
    parameters: deleteFileArgsSchema,
  },
} as const;

/** Tools served by the tools worker (file tools; no user code runs there). */
export const FileToolName = z.enum([
  'read_file',
  'write_file',
  'edit_file',
  'list_directory',
  'search_files',
  'glob',
  'create_directory',
  'move_file',
  'delete_file',
]);
export type FileToolName = z.infer<typeof FileToolName>;
export type FileToolArgs<T extends FileToolName> = z.infer<(typeof fileToolSpecs)[T]['parameters']>;
