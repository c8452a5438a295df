#!/bin/bash
# Builds, on this Debian bookworm x86-64 machine, the ffmpeg the device machine lacks (issue 34):
#   bash bench/gpuFrames/prepare-ffmpeg.sh OUT_DIR
# ffmpeg 5.1.9 from Debian's source package (the same source as Debian's /usr/bin/ffmpeg), minimal, with
# libav* and libx264 linked in statically but glibc dynamic, so that ffnvcodec's loader can dlopen the
# driver's libcuda.so.1 and libnvcuvid.so.1 at run time (Debian's ffmpeg does the same; a fully static
# binary cannot dlopen them reliably). Debian's own package needs 216 shared libraries (270 MB): over the
# device tool's 64 MiB carry. NVDEC: --enable-ffnvcodec --enable-nvdec (h264_nvdec hwaccel, `-hwaccel cuda`)
# and --enable-cuvid (the h264_cuvid decoder), against Debian's nv-codec-headers 11.1.5.2 (libffmpeg-nvenc-dev).
# Needs: deb-src for bookworm, gcc, make, nasm.
set -euo pipefail
OUT=${1:?OUT_DIR}
WORK=${WORK:-/tmp/gpuff}
mkdir -p "$WORK" "$OUT"
cd "$WORK"
if [ ! -d ffsrc/src ]; then
  rm -rf ffsrc && mkdir ffsrc && (cd ffsrc && apt-get source --download-only ffmpeg && dpkg-source -x ffmpeg_5.1.9-0+deb12u1.dsc src)
fi
if [ ! -d x264/root ]; then
  mkdir -p x264 && (cd x264 && apt-get download libx264-dev && dpkg -x libx264-dev_*.deb root && rm -f root/usr/lib/x86_64-linux-gnu/libx264.so*)
fi
if [ ! -d nv/root ]; then
  mkdir -p nv && (cd nv && apt-get download libffmpeg-nvenc-dev && dpkg -x libffmpeg-nvenc-dev_*.deb root)
fi
mkdir -p pc
printf 'prefix=%s\nlibdir=%s\nincludedir=%s\n\nName: x264\nDescription: x264\nVersion: 0.164.3095\nLibs: -L${libdir} -lx264 -lpthread -lm -ldl\nCflags: -I${includedir}\n' \
  "$WORK/x264/root/usr" "$WORK/x264/root/usr/lib/x86_64-linux-gnu" "$WORK/x264/root/usr/include" > pc/x264.pc
printf 'prefix=%s\nincludedir=%s\n\nName: ffnvcodec\nDescription: FFmpeg version of Nvidia Codec SDK headers\nVersion: 11.1.5.2\nCflags: -I${includedir}\n' \
  "$WORK/nv/root/usr" "$WORK/nv/root/usr/include" > pc/ffnvcodec.pc
rm -rf build && mkdir build && cd build
PKG_CONFIG_PATH=$WORK/pc "$WORK/ffsrc/src/configure" --prefix="$WORK/install" \
  --disable-everything --disable-autodetect --disable-doc --disable-network --disable-debug \
  --enable-static --disable-shared --pkg-config-flags=--static \
  --enable-gpl --enable-libx264 --disable-ffplay --enable-ffmpeg --enable-ffprobe \
  --enable-avcodec --enable-avformat --enable-avfilter --enable-avdevice --enable-swscale --enable-swresample \
  --enable-ffnvcodec --enable-nvdec --enable-cuvid --enable-hwaccel=h264_nvdec --enable-decoder=h264,h264_cuvid,rawvideo \
  --enable-parser=h264 --enable-bsf=h264_mp4toannexb --enable-demuxer=mov,rawvideo \
  --enable-encoder=rawvideo,wrapped_avframe,libx264 --enable-muxer=rawvideo,null,mp4,mov,framemd5 \
  --enable-protocol=file,pipe --enable-indev=lavfi \
  --enable-filter=crop,split,select,null,scale,format,buffer,buffersink,copy,setpts,settb,trim,fps,testsrc2,noise,hwdownload,hwupload,anull,aformat,aresample,abuffer,abuffersink,asplit,anullsink,nullsink \
  --enable-pthreads > configure.log
nice -n 10 make -j2 > make.log 2>&1 && make install > install.log 2>&1
mkdir -p "$OUT/bin"
cp "$WORK/install/bin/ffmpeg" "$WORK/install/bin/ffprobe" "$OUT/bin/"
strip "$OUT/bin/ffmpeg" "$OUT/bin/ffprobe"
ldd "$OUT/bin/ffmpeg"
"$OUT/bin/ffmpeg" -hide_banner -hwaccels
du -sh "$OUT/bin"/*
