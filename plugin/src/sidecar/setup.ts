// The one command that installs or upgrades the engine on this system,
// for the first-run panel to show. The plugin never runs it: the user
// does, in a terminal, with their package manager (Obsidian's developer
// policies forbid a plugin installing its dependencies). The package
// manager the machine has comes first: Homebrew on macOS, winget or Scoop
// on Windows, the distribution's package on Linux, else the archive.
import { type Platform, joinPath } from "./locate";

/** RELEASES is the project's release page, which the packages' commands name; the plugin itself fetches nothing from it. */
export const RELEASES = "https://github.com/quire-app/quire/releases";

/** Distro is what /etc/os-release says (ID, ID_LIKE, PRETTY_NAME). */
export interface Distro {
  id: string;
  like: string[];
  name: string;
}

/** System is what the panel needs to know of this machine: its OS and CPU, its Linux distribution, and which package managers it has. */
export interface System extends Pick<Platform, "platform" | "arch"> {
  distro: Distro | null;
  /** managers holds the package managers found: "brew", "winget", "scoop". */
  managers: ReadonlySet<string>;
}

/** Install is the command for this system, and the one that upgrades an engine installed the same way. */
export interface Install {
  /** system names this machine for people: "macOS on Apple silicon", "Debian GNU/Linux 12 on x86-64". */
  system: string;
  /** via names the way: "Homebrew", "winget", "the .deb package", "the archive". */
  via: string;
  install: string;
  upgrade: string;
}

/** parseOsRelease reads /etc/os-release's text. */
export function parseOsRelease(text: string): Distro {
  const v: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m) v[m[1]!] = m[2]!.replace(/^(["'])(.*)\1$/, "$2");
  }
  return { id: (v["ID"] ?? "").toLowerCase(), like: (v["ID_LIKE"] ?? "").toLowerCase().split(/\s+/).filter(Boolean), name: v["PRETTY_NAME"] || v["NAME"] || "Linux" };
}

/** managerPlaces lists where each package manager's own program is, to tell whether the machine has it. */
export function managerPlaces(p: Platform): Record<string, string[]> {
  const e = p.env;
  if (p.platform === "win32") {
    const profile = e["USERPROFILE"] ?? "";
    const local = e["LOCALAPPDATA"] || (profile ? joinPath(p, profile, "AppData", "Local") : "");
    const scoop = e["SCOOP"] || (profile ? joinPath(p, profile, "scoop") : "");
    return {
      winget: local ? [joinPath(p, local, "Microsoft", "WindowsApps", "winget.exe")] : [],
      scoop: scoop ? [joinPath(p, scoop, "shims", "scoop.cmd"), joinPath(p, scoop, "shims", "scoop.ps1")] : [],
    };
  }
  return { brew: ["/opt/homebrew/bin/brew", "/usr/local/bin/brew", "/home/linuxbrew/.linuxbrew/bin/brew"] };
}

/** goArch names the CPU as the release files do. */
function goArch(arch: string): string {
  return arch === "arm64" ? "arm64" : "amd64";
}

/** cpuText names the CPU for people. */
function cpuText(s: Pick<System, "platform" | "arch">): string {
  if (s.platform === "darwin") return s.arch === "arm64" ? "Apple silicon" : "an Intel Mac";
  return s.arch === "arm64" ? "ARM64" : "x86-64";
}

/** assetUrl is a release file of this version. */
export function assetUrl(version: string, file: string): string {
  return `${RELEASES}/download/${version}/${file}`;
}

/** installFor picks the command for this system; version is the plugin's, whose release the packages come from. */
export function installFor(s: System, version: string): Install {
  const arch = goArch(s.arch);
  if (s.platform === "darwin") {
    const system = `macOS on ${cpuText(s)}`;
    if (s.managers.has("brew")) return { system, via: "Homebrew", install: "brew install quire-app/tap/quire", upgrade: "brew upgrade quire" };
    return { system, ...archive("darwin", arch, version) };
  }
  if (s.platform === "win32") {
    const system = `Windows on ${cpuText(s)}`;
    if (s.managers.has("winget")) return { system, via: "winget", install: "winget install Quire.Quire", upgrade: "winget upgrade Quire.Quire" };
    if (s.managers.has("scoop")) {
      return { system, via: "Scoop", install: "scoop bucket add quire https://github.com/quire-app/scoop-bucket; scoop install quire", upgrade: "scoop update quire" };
    }
    const zip = `quire_${version}_windows_${arch}.zip`;
    const cmd = `Invoke-WebRequest ${assetUrl(version, zip)} -OutFile "$env:TEMP\\${zip}"; Expand-Archive "$env:TEMP\\${zip}" "$env:LOCALAPPDATA\\Programs\\quire" -Force`;
    return { system, via: "the archive (in PowerShell)", install: cmd, upgrade: cmd };
  }
  const d = s.distro;
  const system = `${d?.name ?? "Linux"} on ${cpuText(s)}`;
  const is = (...ids: string[]) => d !== null && ids.some((id) => d.id === id || d.like.includes(id));
  const pkg = (ext: string) => `quire_${version}_linux_${arch}.${ext}`;
  if (is("debian", "ubuntu")) {
    const cmd = `curl -fLO ${assetUrl(version, pkg("deb"))} && sudo apt install ./${pkg("deb")}`;
    return { system, via: "the .deb package", install: cmd, upgrade: cmd };
  }
  if (is("fedora", "rhel", "centos")) {
    return { system, via: "the .rpm package", install: `sudo dnf install ${assetUrl(version, pkg("rpm"))}`, upgrade: `sudo dnf upgrade ${assetUrl(version, pkg("rpm"))}` };
  }
  if (is("suse", "opensuse")) {
    const cmd = `sudo zypper install ${assetUrl(version, pkg("rpm"))}`;
    return { system, via: "the .rpm package", install: cmd, upgrade: cmd };
  }
  if (is("arch")) return { system, via: "the AUR package", install: "yay -S quire-bin", upgrade: "yay -Syu quire-bin" };
  if (s.managers.has("brew")) return { system, via: "Homebrew", install: "brew install quire-app/tap/quire", upgrade: "brew upgrade quire" };
  return { system, ...archive("linux", arch, version) };
}

/** archive is the command that unpacks the release's archive into ~/.local/bin, where the plugin looks. */
function archive(os: string, arch: string, version: string): Pick<Install, "via" | "install" | "upgrade"> {
  const cmd = `mkdir -p ~/.local/bin && curl -fL ${assetUrl(version, `quire_${version}_${os}_${arch}.tar.gz`)} | tar -xz -C ~/.local/bin quire`;
  return { via: "the archive", install: cmd, upgrade: cmd };
}
