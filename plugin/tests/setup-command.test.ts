// The first-run panel's one command per system: the package manager the
// machine has first, else the distribution's package, else the archive.
import { describe, expect, it } from "vitest";
import { type System, installFor, managerPlaces, parseOsRelease } from "../src/sidecar/setup";

const sys = (platform: string, arch: string, managers: string[] = [], osRelease?: string): System => ({
  platform,
  arch,
  managers: new Set(managers),
  distro: osRelease === undefined ? null : parseOsRelease(osRelease),
});
const URL = "https://github.com/quire-app/quire/releases/download/0.3.0";

describe("the install command for this system", () => {
  it("macOS: Homebrew's tap when brew is there, else the archive into ~/.local/bin", () => {
    expect(installFor(sys("darwin", "arm64", ["brew"]), "0.3.0")).toEqual({ system: "macOS on Apple silicon", via: "Homebrew", install: "brew install quire-app/tap/quire", upgrade: "brew upgrade quire" });
    expect(installFor(sys("darwin", "x64"), "0.3.0")).toMatchObject({
      system: "macOS on an Intel Mac",
      via: "the archive",
      install: `mkdir -p ~/.local/bin && curl -fL ${URL}/quire_0.3.0_darwin_amd64.tar.gz | tar -xz -C ~/.local/bin quire`,
    });
  });

  it("Windows: winget first, Scoop when only it is there, else the zip in PowerShell", () => {
    expect(installFor(sys("win32", "x64", ["winget", "scoop"]), "0.3.0")).toMatchObject({ via: "winget", install: "winget install Quire.Quire", upgrade: "winget upgrade Quire.Quire" });
    expect(installFor(sys("win32", "x64", ["scoop"]), "0.3.0")).toMatchObject({ via: "Scoop", upgrade: "scoop update quire" });
    expect(installFor(sys("win32", "x64", ["scoop"]), "0.3.0").install).toContain("scoop install quire");
    const zip = installFor(sys("win32", "arm64"), "0.3.0");
    expect(zip).toMatchObject({ system: "Windows on ARM64", via: "the archive (in PowerShell)" });
    expect(zip.install).toContain(`${URL}/quire_0.3.0_windows_arm64.zip`);
  });

  it("Linux: the distribution's package by ID or ID_LIKE, the AUR on Arch, Homebrew or the archive elsewhere", () => {
    const debian = installFor(sys("linux", "x64", [], 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n'), "0.3.0");
    expect(debian).toEqual({
      system: "Debian GNU/Linux 12 (bookworm) on x86-64",
      via: "the .deb package",
      install: `curl -fLO ${URL}/quire_0.3.0_linux_amd64.deb && sudo apt install ./quire_0.3.0_linux_amd64.deb`,
      upgrade: `curl -fLO ${URL}/quire_0.3.0_linux_amd64.deb && sudo apt install ./quire_0.3.0_linux_amd64.deb`,
    });
    expect(installFor(sys("linux", "arm64", [], 'NAME="Linux Mint"\nID=linuxmint\nID_LIKE="ubuntu debian"\n'), "0.3.0").install).toContain("quire_0.3.0_linux_arm64.deb");
    expect(installFor(sys("linux", "x64", [], "ID=fedora\nPRETTY_NAME='Fedora Linux 41'\n"), "0.3.0")).toMatchObject({ via: "the .rpm package", install: `sudo dnf install ${URL}/quire_0.3.0_linux_amd64.rpm` });
    expect(installFor(sys("linux", "x64", [], "ID=opensuse-tumbleweed\nID_LIKE=\"opensuse suse\"\n"), "0.3.0").install).toMatch(/^sudo zypper install /);
    expect(installFor(sys("linux", "x64", [], "ID=endeavouros\nID_LIKE=arch\n"), "0.3.0")).toMatchObject({ via: "the AUR package", install: "yay -S quire-bin" });
    expect(installFor(sys("linux", "x64", ["brew"], "ID=nixos\n"), "0.3.0")).toMatchObject({ via: "Homebrew" });
    expect(installFor(sys("linux", "x64", [], "ID=nixos\n"), "0.3.0")).toMatchObject({ via: "the archive" });
    expect(installFor(sys("linux", "x64"), "0.3.0")).toMatchObject({ system: "Linux on x86-64", via: "the archive" });
  });

  it("looks for each package manager's own program where it installs itself", () => {
    const win = managerPlaces({ platform: "win32", arch: "x64", env: { USERPROFILE: "C:\\Users\\ada", LOCALAPPDATA: "C:\\Users\\ada\\AppData\\Local" } });
    expect(win["winget"]).toEqual(["C:\\Users\\ada\\AppData\\Local\\Microsoft\\WindowsApps\\winget.exe"]);
    expect(win["scoop"]).toContain("C:\\Users\\ada\\scoop\\shims\\scoop.cmd");
    expect(managerPlaces({ platform: "darwin", arch: "arm64", env: {} })["brew"]).toContain("/opt/homebrew/bin/brew");
  });
});
