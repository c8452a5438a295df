// Reads `fpsweep.caption.*` from VS Code (sectionSettings.ts); the schema and the CLI arguments are in
// captionSettingsModel.ts.
import { readSectionSettings, searchFolders, workspacePath } from '../../sectionSettings';
import { captionSettingsSchema, type CaptionSettings } from './captionSettingsModel';

/** Reads `fpsweep.caption.*`; a bad value is named with its setting, never silently replaced. */
export function readCaptionSettings(): CaptionSettings {
  return readSectionSettings('caption', captionSettingsSchema);
}

/** The configured videos root, absolute (relative to the first workspace folder), or undefined. */
export function configuredVideosRoot(s: CaptionSettings): string | undefined {
  return workspacePath(s.videosRoot);
}

/** Where the tree looks for videos roots: the configured one and every workspace folder. */
export function captionSearchFolders(): string[] {
  return searchFolders(() => [configuredVideosRoot(readCaptionSettings())]);
}
