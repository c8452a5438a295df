"""NVDEC inside the helper's own CUDA context (issue 45), through the driver's libnvcuvid.so.1 and libcuda.so.1.

Why: with ffmpeg's NVDEC (`-hwaccel cuda`, fp_gpu_frames.nvdec_command) every video starts an ffmpeg with its own CUDA
context, and each stored frame asked for goes GPU -> host (hwdownload) -> pipe -> host -> GPU again (1.4 MB a 720p
frame, ~1 GB a video). bench/gpuSweep parts.py on an H200: those ffmpegs alone took 0.194 of the helper's 0.370 GPU-ms
a megapixel-frame from a model-shaped matmul beside them, and 2.2 CPU-s a video. Here ffmpeg only demuxes (`-c:v copy`,
Annex B on a pipe: a few MB, no CUDA); NVIDIA's parser and decoder run in this process, and each frame asked for is
copied on the GPU from the decoder's surface into the batch the helper's colour conversion reads.

The same frames as ffmpeg's decode, or none: the stream must be 8-bit 4:2:0 progressive H.264 at the stored size, and
the frames the parser displays must number exactly the stored frames (meta n_frames, `len(timestamps)`), as the CPU
path requires of ffmpeg (ffmpegDecode.ts). Anything else (another codec, an edit list that makes ffmpeg drop frames, a
damaged frame, no libnvcuvid) raises NvdecUnfit; the count is known only at the end, so the caller then runs the same
job through ffmpeg, which writes every output again (fp_gpu_frames.py: the node side reads none before the answer).
Structures: the Video Codec SDK's nvcuvid.h and cuviddec.h (nv-codec-headers 11.1.5.2, as Debian ships them).
"""
import ctypes
import os
import signal
import subprocess
import threading
from ctypes import POINTER, Structure, byref, c_int, c_longlong, c_short, c_size_t, c_ubyte, c_uint, c_ulong, c_ulonglong, c_void_p

CODEC_H264 = 4  # cudaVideoCodec_H264
CHROMA_420 = 1  # cudaVideoChromaFormat_420
SURFACE_NV12 = 0  # cudaVideoSurfaceFormat_NV12
DEINTERLACE_WEAVE = 0
CREATE_PREFER_CUVID = 4
PKT_ENDOFSTREAM = 1
STATUS_ERROR, STATUS_ERROR_CONCEALED = 8, 9
CUDA_ERROR_NOT_SUPPORTED = 801
MEMORYTYPE_DEVICE = 2
# Frames the parser may hold back before display (pipelines NVDEC with our copies) and surfaces mapped at once (their
# copies are waited for once per this many frames, not once a frame).
DISPLAY_DELAY = 2
MAPPED_AT_ONCE = 4
CHUNK = 1 << 20


class NvdecUnfit(Exception):
    """This video (or host) cannot be decoded here as ffmpeg would: the caller decodes it through ffmpeg."""


class VideoFormat(Structure):  # CUVIDEOFORMAT
    _fields_ = [("codec", c_int), ("frame_rate_num", c_uint), ("frame_rate_den", c_uint),
                ("progressive_sequence", c_ubyte), ("bit_depth_luma_minus8", c_ubyte), ("bit_depth_chroma_minus8", c_ubyte),
                ("min_num_decode_surfaces", c_ubyte), ("coded_width", c_uint), ("coded_height", c_uint),
                ("left", c_int), ("top", c_int), ("right", c_int), ("bottom", c_int),
                ("chroma_format", c_int), ("bitrate", c_uint), ("dar_x", c_int), ("dar_y", c_int),
                ("video_signal_description", c_ubyte * 4), ("seqhdr_data_length", c_uint)]


class DispInfo(Structure):  # CUVIDPARSERDISPINFO
    _fields_ = [("picture_index", c_int), ("progressive_frame", c_int), ("top_field_first", c_int),
                ("repeat_first_field", c_int), ("timestamp", c_longlong)]


SEQ_CB = ctypes.CFUNCTYPE(c_int, c_void_p, POINTER(VideoFormat))
DECODE_CB = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p)
DISPLAY_CB = ctypes.CFUNCTYPE(c_int, c_void_p, POINTER(DispInfo))


class ParserParams(Structure):  # CUVIDPARSERPARAMS
    _fields_ = [("CodecType", c_int), ("ulMaxNumDecodeSurfaces", c_uint), ("ulClockRate", c_uint),
                ("ulErrorThreshold", c_uint), ("ulMaxDisplayDelay", c_uint), ("bits", c_uint), ("uReserved1", c_uint * 4),
                ("pUserData", c_void_p), ("pfnSequenceCallback", SEQ_CB), ("pfnDecodePicture", DECODE_CB),
                ("pfnDisplayPicture", DISPLAY_CB), ("pfnGetOperatingPoint", c_void_p), ("pvReserved2", c_void_p * 6),
                ("pExtVideoInfo", c_void_p)]


class Packet(Structure):  # CUVIDSOURCEDATAPACKET
    _fields_ = [("flags", c_ulong), ("payload_size", c_ulong), ("payload", c_void_p), ("timestamp", c_longlong)]


class Rect(Structure):
    _fields_ = [("left", c_short), ("top", c_short), ("right", c_short), ("bottom", c_short)]


class CreateInfo(Structure):  # CUVIDDECODECREATEINFO
    _fields_ = [("ulWidth", c_ulong), ("ulHeight", c_ulong), ("ulNumDecodeSurfaces", c_ulong), ("CodecType", c_int),
                ("ChromaFormat", c_int), ("ulCreationFlags", c_ulong), ("bitDepthMinus8", c_ulong),
                ("ulIntraDecodeOnly", c_ulong), ("ulMaxWidth", c_ulong), ("ulMaxHeight", c_ulong), ("Reserved1", c_ulong),
                ("display_area", Rect), ("OutputFormat", c_int), ("DeinterlaceMode", c_int), ("ulTargetWidth", c_ulong),
                ("ulTargetHeight", c_ulong), ("ulNumOutputSurfaces", c_ulong), ("vidLock", c_void_p), ("target_rect", Rect),
                ("enableHistogram", c_ulong), ("Reserved2", c_ulong * 4)]


class ProcParams(Structure):  # CUVIDPROCPARAMS
    _fields_ = [("progressive_frame", c_int), ("second_field", c_int), ("top_field_first", c_int), ("unpaired_field", c_int),
                ("reserved_flags", c_uint), ("reserved_zero", c_uint), ("raw_input_dptr", c_ulonglong),
                ("raw_input_pitch", c_uint), ("raw_input_format", c_uint), ("raw_output_dptr", c_ulonglong),
                ("raw_output_pitch", c_uint), ("Reserved1", c_uint), ("output_stream", c_void_p), ("Reserved", c_uint * 46),
                ("histogram_dptr", c_void_p), ("Reserved2", c_void_p * 1)]


class DecodeStatus(Structure):  # CUVIDGETDECODESTATUS
    _fields_ = [("decodeStatus", c_int), ("reserved", c_uint * 31), ("pReserved", c_void_p * 8)]


class Memcpy2D(Structure):  # CUDA_MEMCPY2D
    _fields_ = [("srcXInBytes", c_size_t), ("srcY", c_size_t), ("srcMemoryType", c_int), ("srcHost", c_void_p),
                ("srcDevice", c_ulonglong), ("srcArray", c_void_p), ("srcPitch", c_size_t),
                ("dstXInBytes", c_size_t), ("dstY", c_size_t), ("dstMemoryType", c_int), ("dstHost", c_void_p),
                ("dstDevice", c_ulonglong), ("dstArray", c_void_p), ("dstPitch", c_size_t),
                ("WidthInBytes", c_size_t), ("Height", c_size_t)]


_LIBS = {}
_LIBS_LOCK = threading.Lock()


def libs():
    """(libcuda, libnvcuvid, a context lock on torch's CUDA context), loaded once a process; that context is made
    current in the calling thread."""
    with _LIBS_LOCK:
        if "cuda" not in _LIBS:
            try:
                cuda, cuvid = ctypes.CDLL("libcuda.so.1"), ctypes.CDLL("libnvcuvid.so.1")
            except OSError as e:
                raise NvdecUnfit(f"no NVDEC library: {e}")
            cuvid.cuvidMapVideoFrame64.argtypes = [c_void_p, c_int, POINTER(c_ulonglong), POINTER(c_uint), POINTER(ProcParams)]
            cuvid.cuvidUnmapVideoFrame64.argtypes = [c_void_p, c_ulonglong]
            cuvid.cuvidDecodePicture.argtypes = [c_void_p, c_void_p]
            cuvid.cuvidGetDecodeStatus.argtypes = [c_void_p, c_int, POINTER(DecodeStatus)]
            cuvid.cuvidParseVideoData.argtypes = [c_void_p, POINTER(Packet)]
            cuvid.cuvidCreateVideoParser.argtypes = [POINTER(c_void_p), POINTER(ParserParams)]
            cuvid.cuvidCreateDecoder.argtypes = [POINTER(c_void_p), POINTER(CreateInfo)]
            cuvid.cuvidDestroyDecoder.argtypes = [c_void_p]
            cuvid.cuvidDestroyVideoParser.argtypes = [c_void_p]
            cuvid.cuvidCtxLockCreate.argtypes = [POINTER(c_void_p), c_void_p]
            cuda.cuMemcpy2DAsync_v2.argtypes = [POINTER(Memcpy2D), c_void_p]
            cuda.cuStreamSynchronize.argtypes = [c_void_p]
            cuda.cuCtxGetCurrent.argtypes = [POINTER(c_void_p)]
            cuda.cuCtxSetCurrent.argtypes = [c_void_p]
            ctx = c_void_p()
            check(cuda.cuCtxGetCurrent(byref(ctx)), "cuCtxGetCurrent")
            if not ctx.value:
                raise NvdecUnfit("no current CUDA context (torch has not started CUDA in this process)")
            lock = c_void_p()
            check(cuvid.cuvidCtxLockCreate(byref(lock), ctx), "cuvidCtxLockCreate")
            _LIBS.update(cuda=cuda, cuvid=cuvid, lock=lock, ctx=ctx)
    cuda, ctx = _LIBS["cuda"], c_void_p()
    # Torch's context (the first caller's) current in this thread too: the decoder and the copies are made in it.
    check(cuda.cuCtxGetCurrent(byref(ctx)), "cuCtxGetCurrent")
    if ctx.value != _LIBS["ctx"].value:
        check(cuda.cuCtxSetCurrent(_LIBS["ctx"]), "cuCtxSetCurrent")
    return cuda, _LIBS["cuvid"], _LIBS["lock"]


def check(rc, what):
    if rc != 0:
        raise NvdecUnfit(f"{what} returned CUDA error {rc}")


def demux_command(ffmpeg, video):
    """ffmpeg as a demuxer only: the first video stream's packets as an H.264 Annex B stream on stdout (no decode, no
    CUDA). -bsf:v h264_mp4toannexb refuses any other codec, so another codec ends here (NvdecUnfit)."""
    return [ffmpeg, "-hide_banner", "-loglevel", "error", "-nostdin", "-i", video, "-map", "0:v:0", "-an", "-sn", "-dn",
            "-c:v", "copy", "-bsf:v", "h264_mp4toannexb", "-f", "rawvideo", "pipe:1"]


class NvdecJob:
    """One video through NVIDIA's parser and decoder. `on_frame(k, index)` is called after stored frame `index` (one of
    `indices`, in order) was copied into slot k of `batch()`'s tensor; `on_batch(n)` when n slots are ready to use (the
    copies are enqueued on the current torch stream, so work the caller enqueues after them sees the frames)."""

    def __init__(self, torch, width, height, stored_frames, indices, batch_size, on_batch):
        self.torch = torch
        self.w, self.h, self.stored = width, height, stored_frames
        self.wanted = sorted(set(indices))
        self.batch_size, self.on_batch = batch_size, on_batch
        self.cuda, self.cuvid, self.lock = libs()
        self.stream = torch.cuda.current_stream()
        self.frame_bytes = width * height * 3 // 2
        self.buf = torch.empty((batch_size, self.frame_bytes), dtype=torch.uint8, device="cuda")
        self.decoder = c_void_p()
        self.parser = c_void_p()
        self.displayed = 0
        self.next_wanted = 0
        self.filled = 0
        self.mapped = []
        self.error = None
        self.cb_seq, self.cb_decode, self.cb_display = SEQ_CB(self._sequence), DECODE_CB(self._decode), DISPLAY_CB(self._display)

    def _fail(self, e):
        if self.error is None:
            self.error = e
        return 0

    def _sequence(self, _user, fmt_p):
        try:
            f = fmt_p.contents
            shown = (f.right - f.left, f.bottom - f.top)
            if f.codec != CODEC_H264 or f.chroma_format != CHROMA_420 or f.bit_depth_luma_minus8 or f.bit_depth_chroma_minus8:
                raise NvdecUnfit(f"not 8-bit 4:2:0 H.264 (codec {f.codec}, chroma {f.chroma_format}, +{f.bit_depth_luma_minus8} bits)")
            if not f.progressive_sequence:
                raise NvdecUnfit("an interlaced sequence")
            if shown != (self.w, self.h) or self.w % 2 or self.h % 2:
                raise NvdecUnfit(f"the stream shows {shown[0]}x{shown[1]}, the stored size is {self.w}x{self.h}")
            if self.decoder.value:
                raise NvdecUnfit("a second sequence header with another format")
            surfaces = int(f.min_num_decode_surfaces) + DISPLAY_DELAY + 2
            ci = CreateInfo(ulWidth=f.coded_width, ulHeight=f.coded_height, ulNumDecodeSurfaces=surfaces, CodecType=f.codec,
                            ChromaFormat=f.chroma_format, ulCreationFlags=CREATE_PREFER_CUVID, bitDepthMinus8=0,
                            ulMaxWidth=f.coded_width, ulMaxHeight=f.coded_height,
                            display_area=Rect(f.left, f.top, f.right, f.bottom), OutputFormat=SURFACE_NV12,
                            DeinterlaceMode=DEINTERLACE_WEAVE, ulTargetWidth=self.w, ulTargetHeight=self.h,
                            ulNumOutputSurfaces=MAPPED_AT_ONCE, vidLock=self.lock)
            check(self.cuvid.cuvidCreateDecoder(byref(self.decoder), byref(ci)), "cuvidCreateDecoder")
            return surfaces
        except Exception as e:
            return self._fail(e)

    def _decode(self, _user, pic):
        if self.error is not None:
            return 0
        rc = self.cuvid.cuvidDecodePicture(self.decoder, pic)
        return 1 if rc == 0 else self._fail(NvdecUnfit(f"cuvidDecodePicture returned CUDA error {rc}"))

    def _display(self, _user, disp_p):
        if self.error is not None:
            return 0
        try:
            n = self.displayed
            self.displayed += 1
            if self.next_wanted >= len(self.wanted) or self.wanted[self.next_wanted] != n:
                return 1
            self.next_wanted += 1
            d = disp_p.contents
            self._status(d.picture_index, n)
            pp = ProcParams(progressive_frame=d.progressive_frame, top_field_first=d.top_field_first,
                            unpaired_field=1 if d.repeat_first_field < 0 else 0, output_stream=self.stream.cuda_stream)
            ptr, pitch = c_ulonglong(), c_uint()
            check(self.cuvid.cuvidMapVideoFrame64(self.decoder, d.picture_index, byref(ptr), byref(pitch), byref(pp)), "cuvidMapVideoFrame64")
            self.mapped.append(ptr.value)
            # Luma, then chroma right below it (the surface's luma height is the even target height): one 2D copy.
            cp = Memcpy2D(srcMemoryType=MEMORYTYPE_DEVICE, srcDevice=ptr.value, srcPitch=pitch.value,
                          dstMemoryType=MEMORYTYPE_DEVICE, dstDevice=self.buf[self.filled].data_ptr(), dstPitch=self.w,
                          WidthInBytes=self.w, Height=self.h * 3 // 2)
            check(self.cuda.cuMemcpy2DAsync_v2(byref(cp), c_void_p(self.stream.cuda_stream)), "cuMemcpy2DAsync")
            self.filled += 1
            if len(self.mapped) >= MAPPED_AT_ONCE:
                self._unmap()
            if self.filled == self.batch_size:
                self._flush()
            return 1
        except Exception as e:
            return self._fail(e)

    def _status(self, picture_index, n):
        st = DecodeStatus()
        rc = self.cuvid.cuvidGetDecodeStatus(self.decoder, picture_index, byref(st))
        if rc == 0 and st.decodeStatus in (STATUS_ERROR, STATUS_ERROR_CONCEALED):
            raise NvdecUnfit(f"frame {n} decoded with an error (status {st.decodeStatus})")
        if rc not in (0, CUDA_ERROR_NOT_SUPPORTED):
            raise NvdecUnfit(f"cuvidGetDecodeStatus returned CUDA error {rc}")

    def _unmap(self):
        """The copies out of the mapped surfaces are done: give the surfaces back."""
        check(self.cuda.cuStreamSynchronize(c_void_p(self.stream.cuda_stream)), "cuStreamSynchronize")
        for p in self.mapped:
            check(self.cuvid.cuvidUnmapVideoFrame64(self.decoder, p), "cuvidUnmapVideoFrame64")
        self.mapped = []

    def _flush(self):
        self._unmap()
        n, self.filled = self.filled, 0
        self.on_batch(self.buf[:n].view(n, self.h * 3 // 2, self.w))

    def run(self, ffmpeg, video):
        """Decodes the whole video; returns (frames delivered, the demuxer's CPU-s). NvdecUnfit when it cannot be this
        video's frames as ffmpeg decodes them."""
        params = ParserParams(CodecType=CODEC_H264, ulMaxNumDecodeSurfaces=1, ulErrorThreshold=0,
                              ulMaxDisplayDelay=DISPLAY_DELAY, pfnSequenceCallback=self.cb_seq,
                              pfnDecodePicture=self.cb_decode, pfnDisplayPicture=self.cb_display)
        check(self.cuvid.cuvidCreateVideoParser(byref(self.parser), byref(params)), "cuvidCreateVideoParser")
        proc = subprocess.Popen(demux_command(ffmpeg, video), stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        try:
            chunk = bytearray(CHUNK)
            view = memoryview(chunk)
            addr = ctypes.addressof(ctypes.c_char.from_buffer(chunk))
            while self.error is None:
                got = proc.stdout.readinto(view)
                if not got:
                    break
                check(self.cuvid.cuvidParseVideoData(self.parser, byref(Packet(flags=0, payload_size=got, payload=addr))), "cuvidParseVideoData")
            if self.error is None:
                check(self.cuvid.cuvidParseVideoData(self.parser, byref(Packet(flags=PKT_ENDOFSTREAM))), "cuvidParseVideoData (end)")
            if self.error is None and self.filled:
                self._flush()
        finally:
            proc.stdout.close()
            if self.error is not None:  # stopped early: the demuxer need not finish (os.kill: Popen.kill would reap it)
                os.kill(proc.pid, signal.SIGKILL)
            err = proc.stderr.read().decode(errors="replace")
            proc.stderr.close()
            # Its own CPU (wait4: its rusage alone, also while other job threads reap theirs).
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            self._close()
        if self.error is not None:
            raise self.error if isinstance(self.error, NvdecUnfit) else NvdecUnfit(f"{type(self.error).__name__}: {self.error}")
        if proc.returncode != 0:
            raise NvdecUnfit(f"the demuxer (ffmpeg -c:v copy) exit {proc.returncode}: {err.strip()[-300:]}")
        if self.displayed != self.stored:
            raise NvdecUnfit(f"NVDEC displayed {self.displayed} frames, the video has {self.stored} stored")
        if self.next_wanted != len(self.wanted):
            raise NvdecUnfit(f"{self.next_wanted} of {len(self.wanted)} frames asked were displayed")
        return self.next_wanted, usage.ru_utime + usage.ru_stime

    def _close(self):
        try:
            if self.mapped and self.decoder.value:
                self._unmap()
        except NvdecUnfit:
            pass
        if self.parser.value:
            self.cuvid.cuvidDestroyVideoParser(self.parser)
            self.parser = c_void_p()
        if self.decoder.value:
            self.cuvid.cuvidDestroyDecoder(self.decoder)
            self.decoder = c_void_p()


def available():
    """Whether this process can load the driver's NVDEC library (no decoder made)."""
    try:
        ctypes.CDLL("libnvcuvid.so.1")
        return True
    except OSError:
        return False

