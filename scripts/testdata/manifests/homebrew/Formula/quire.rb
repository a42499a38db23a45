# Written by scripts/formula for Quire 0.0.0; the release workflow pushes it to quire-app/homebrew-tap.
class Quire < Formula
  desc "Local companion for an Obsidian vault: search, cited answers, ingest"
  homepage "https://github.com/quire-app/quire"
  version "0.0.0"
  license "AGPL-3.0-only"

  on_macos do
    on_arm do
      url "https://github.com/quire-app/quire/releases/download/0.0.0/quire_0.0.0_darwin_arm64.tar.gz"
      sha256 "32e47773fdbed184ab5205b0a37c3bb0afa3bba5c4dbb12a351d3b7664fa260e"
    end
    on_intel do
      url "https://github.com/quire-app/quire/releases/download/0.0.0/quire_0.0.0_darwin_amd64.tar.gz"
      sha256 "d8e1e7a685f8c40f6a86596eab2a10648f83463216298dfb60a31492ac87dd28"
    end
  end

  on_linux do
    on_arm do
      url "https://github.com/quire-app/quire/releases/download/0.0.0/quire_0.0.0_linux_arm64.tar.gz"
      sha256 "4b43843ce9bb77193bfad52770364debf5c78651506e321626149c118293b323"
    end
    on_intel do
      url "https://github.com/quire-app/quire/releases/download/0.0.0/quire_0.0.0_linux_amd64.tar.gz"
      sha256 "009450de5568116877edd94571ee342122ec1240befaa565d61975bd9e7f54fe"
    end
  end

  def install
    bin.install "quire"
    doc.install Dir["notices/*"]
  end

  def caveats
    <<~EOS
      Quire's Obsidian plugin finds this engine in Homebrew's bin folder by itself.
    EOS
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/quire version")
  end
end
