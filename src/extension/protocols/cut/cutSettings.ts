// Reads `fpsweep.cut.*` from VS Code (sectionSettings.ts); the schema and the CLI arguments are in cutSettingsModel.ts.
import { readSectionSettings, searchFolders, workspacePath } from '../../sectionSettings';
import { cutSettingsSchema, type CutSettings } from './cutSettingsModel';

export function readCutSettings(): CutSettings {
  return readSectionSettings('cut', cutSettingsSchema);
}

/** The configured output root, absolute (relative to the first workspace folder), or undefined. */
export function configuredOutputRoot(s: CutSettings): string | undefined {
  return workspacePath(s.outputRoot);
}

export function configuredInputRoot(s: CutSettings): string | undefined {
  return workspacePath(s.inputRoot);
}

/** Where the tree looks for output roots: the configured one and every workspace folder. */
export function cutSearchFolders(): string[] {
  return searchFolders(() => [configuredOutputRoot(readCutSettings())]);
}
