"""
Classic image filters on any OpenCL device: NumPy in and out, or images kept on the device.
"""

from collections.abc import Sequence

import numpy


class ClError(RuntimeError):
    pass

class NoOpenClError(RuntimeError):
    pass

class DeviceInfo:
    """An OpenCL device as `clfilters devices` lists it."""

    @property
    def index(self) -> str:
        """'platform:device', what Context(index) takes"""

    @property
    def platform_name(self) -> str: ...

    @property
    def platform_version(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def vendor(self) -> str: ...

    @property
    def driver_version(self) -> str: ...

    @property
    def device_version(self) -> str: ...

    @property
    def opencl_c_version(self) -> str: ...

    @property
    def type(self) -> str:
        """'GPU', 'CPU', ..."""

    @property
    def compute_units(self) -> int: ...

    @property
    def global_mem_bytes(self) -> int: ...

    @property
    def local_mem_bytes(self) -> int: ...

    @property
    def max_work_group_size(self) -> int: ...

    @property
    def image_support(self) -> bool: ...

    @property
    def fp16(self) -> bool: ...

    @property
    def extensions(self) -> str: ...

    def __repr__(self) -> str: ...

def devices() -> list[DeviceInfo]:
    """Every OpenCL device of every platform, in platform order."""

class Context:
    """
    An OpenCL device with its context, an in-order queue and its built programs. Programs are built on first use and cached, so keep one Context and pass it to every call. Calls on one Context from several threads go to its one queue.
    """

    def __init__(self, device: str = '') -> None:
        """
        `device` is an index ('0', '1:0') or a case-insensitive part of the platform or device name ('nvidia', 'pocl', 'cpu'); '' (default) means $CLFILTERS_DEVICE, else the first GPU, else the first CPU.
        """

    @staticmethod
    def from_pyopencl(context: object, queue: object) -> Context:
        """
        Works inside pyopencl: adopts its context, the queue's device and the in-order queue (retained, never destroyed by clfilters). Calls go to that queue; DeviceImage.view wraps pyopencl arrays and buffers with no copy.
        """

    @property
    def device(self) -> DeviceInfo:
        """The DeviceInfo of the context's device."""

    @property
    def profiling(self) -> bool:
        """
        Whether commands go to a profiling queue (True by default); False saves a few microseconds a call.
        """

    @profiling.setter
    def profiling(self, arg: bool, /) -> None: ...

    def finish(self) -> None:
        """Waits until every command enqueued on the context's queue is done."""

    def __repr__(self) -> str: ...

def default_context() -> Context:
    """
    The Context calls without `ctx` run on, made on first use as Context() makes it.
    """

class DeviceImage:
    """
    An image in device memory: uint8 or uint16 with 1, 3 or 4 channels (RGB is held as RGBA with alpha 255 or 65535), or one channel of int16 (a Sobel gradient) or float32 (an edge map, a reconstruction). Every filter takes one and returns one on the same context, so a chain of filters makes no host round trip (box_blur, epsilon and bilateral take uint16 ones too, the others uint8). np.asarray(image) downloads it.
    """

    @staticmethod
    def upload(ctx: Context, array: numpy.ndarray) -> DeviceImage:
        """
        Copies a host array (any layout) to the device of `ctx`: uint8 or uint16 of shape H x W or H x W x C (C in 1, 3, 4), or float32 of shape H x W.
        """

    @staticmethod
    def view(ctx: Context, buffer: object, shape: tuple[int, ...] | None = None, dtype: object = None, offset: int = 0, row_pitch: int = 0) -> DeviceImage:
        """
        A view of device memory that `ctx` shares (Context.from_pyopencl), with no copy: a pyopencl.array.Array (its shape, dtype, offset and row stride are used), or a pyopencl.Buffer or cl_mem handle with `shape` ((H, W) or (H, W, C)), `dtype` ('uint8', the default, 'uint16' or 'float32'), `offset` and `row_pitch` in bytes (0: packed rows). uint8 and uint16 views hold 1 or 4 channels. Filters read and write views in place (a pitched or offset one through a packed copy on the device).
        """

    def download(self) -> numpy.ndarray:
        """Copies the image to a new host array."""

    def __array__(self, dtype: object = None, copy: object = None) -> numpy.ndarray:
        """The image as a NumPy array (a download)."""

    @property
    def shape(self) -> tuple[int, ...]:
        """(H, W) or (H, W, C), as the array it came from."""

    @property
    def dtype(self) -> numpy.dtype:
        """numpy.dtype of the samples."""

    @property
    def width(self) -> int: ...

    @property
    def height(self) -> int: ...

    @property
    def channels(self) -> int: ...

    @property
    def context(self) -> Context:
        """The Context the image lives on."""

    def __repr__(self) -> str: ...

def contexts(devices: str) -> list[Context]:
    """
    A Context for each device `devices` names, for the filters' ctx=[...] (one image's bands, or a batch's images, shared out over them): a comma-separated list of what Context() takes ('0,1', '1:0,pocl'), or of 'all', 'all-gpus', 'all-cpus'. An item 'SEL/N' is device SEL split into N sub-devices, so one CPU acts as several. '' means [Context()]. ValueError names a bad item (no such device, a device named twice, one that cannot be split so).
    """

def box_blur(img: numpy.ndarray | DeviceImage | Sequence[numpy.ndarray], diameter: int = 9, border: str = 'replicate', variant: str = 'auto', ctx: Context | Sequence[Context] | None = None, out: numpy.ndarray | DeviceImage | None = None) -> numpy.ndarray | DeviceImage | list[numpy.ndarray]:
    """
    Box blur: the rounded mean of the d x d window on every channel, exact in integers.

    diameter: 1..4095 (default 9), odd or even.
    border: 'replicate' (default), 'reflect101', 'constant' or 'constant=V'.
    `img` is a NumPy array (uint8 or uint16, H x W or H x W x C, C in 1 to 4; C-contiguous ones are read in place, other layouts packed first; parameters in sample units: a uint16 array's threshold, sigma_range and border constant are on its 0..65535 scale) or a DeviceImage (uint8 or uint16, likewise). An array gives a new array of its shape, or writes `out` and returns it, as NumPy's out= does: an array of the same shape and dtype, writeable, sharing no memory with `img` (written directly where C-contiguous and the layout allows, else through a temporary). A DeviceImage gives a DeviceImage of its shape and dtype on its context (or `out`, a DeviceImage of the same shape and dtype), enqueued without waiting. `ctx` is the Context to run on (default: clfilters.default_context()). `variant` picks a variant as --variant does.
    `img` may also be a list or tuple of arrays, a batch: a list of results in input order. `ctx` may also be a list or tuple of Contexts (clfilters.contexts) that share the work: one array's bands, or a batch's images, handed out as each device finishes one. DeviceImages take neither. A batch takes no `out`.
    """

def epsilon(img: numpy.ndarray | DeviceImage | Sequence[numpy.ndarray], radius: int = 4, threshold: int = 20, border: str = 'replicate', variant: str = 'auto', ctx: Context | Sequence[Context] | None = None, out: numpy.ndarray | DeviceImage | None = None) -> numpy.ndarray | DeviceImage | list[numpy.ndarray]:
    """
    Epsilon filter (mosquito-noise removal): the rounded mean of the window pixels within `threshold` of the centre. Grey is filtered; RGB and RGBA have R, G and B filtered and alpha copied.

    radius: 1..32 (default 4), a (2r+1) x (2r+1) window.
    threshold: 0..255, or 0..65535 for uint16 (default 20).
    border: 'replicate' (default), 'reflect101', 'constant' or 'constant=V'.
    `img` is a NumPy array (uint8 or uint16, H x W or H x W x C, C in 1 to 4; C-contiguous ones are read in place, other layouts packed first; parameters in sample units: a uint16 array's threshold, sigma_range and border constant are on its 0..65535 scale) or a DeviceImage (uint8 or uint16, likewise). An array gives a new array of its shape, or writes `out` and returns it, as NumPy's out= does: an array of the same shape and dtype, writeable, sharing no memory with `img` (written directly where C-contiguous and the layout allows, else through a temporary). A DeviceImage gives a DeviceImage of its shape and dtype on its context (or `out`, a DeviceImage of the same shape and dtype), enqueued without waiting. `ctx` is the Context to run on (default: clfilters.default_context()). `variant` picks a variant as --variant does.
    `img` may also be a list or tuple of arrays, a batch: a list of results in input order. `ctx` may also be a list or tuple of Contexts (clfilters.contexts) that share the work: one array's bands, or a batch's images, handed out as each device finishes one. DeviceImages take neither. A batch takes no `out`.
    """

def bilateral(img: numpy.ndarray | DeviceImage | Sequence[numpy.ndarray], sigma_spatial: float = 3.0, sigma_range: float = 30.0, radius: int | None = None, border: str = 'replicate', window: str = 'square', distance: str = 'l2', variant: str = 'auto', ctx: Context | Sequence[Context] | None = None, out: numpy.ndarray | DeviceImage | None = None) -> numpy.ndarray | DeviceImage | list[numpy.ndarray]:
    """
    Bilateral filter: smooths while keeping edges; grey, or colour with the distance over R, G and B and alpha copied.

    sigma_spatial: in pixels, at least 0.01 (default 3).
    sigma_range: in sample units (0..255, or 0..65535 for uint16), at least 0.01 (default 30).
    radius: 0..16; None (default) means ceil(2 * sigma_spatial), at most 16.
    border: 'replicate' (default), 'reflect101', 'constant' or 'constant=V'.
    window: 'square' (default), the whole (2r+1) x (2r+1) window, or 'disk', the taps with dx^2 + dy^2 <= r^2.
    distance: 'l2' (default), the Euclidean colour distance, or 'l1', |dR| + |dG| + |dB| (grey: both are |p - c|). window='disk', distance='l1' are the taps and weights of OpenCV's bilateralFilter.
    `img` is a NumPy array (uint8 or uint16, H x W or H x W x C, C in 1 to 4; C-contiguous ones are read in place, other layouts packed first; parameters in sample units: a uint16 array's threshold, sigma_range and border constant are on its 0..65535 scale) or a DeviceImage (uint8 or uint16, likewise). An array gives a new array of its shape, or writes `out` and returns it, as NumPy's out= does: an array of the same shape and dtype, writeable, sharing no memory with `img` (written directly where C-contiguous and the layout allows, else through a temporary). A DeviceImage gives a DeviceImage of its shape and dtype on its context (or `out`, a DeviceImage of the same shape and dtype), enqueued without waiting. `ctx` is the Context to run on (default: clfilters.default_context()). `variant` picks a variant as --variant does.
    `img` may also be a list or tuple of arrays, a batch: a list of results in input order. `ctx` may also be a list or tuple of Contexts (clfilters.contexts) that share the work: one array's bands, or a batch's images, handed out as each device finishes one. DeviceImages take neither. A batch takes no `out`.
    """

def sobel(img: numpy.ndarray | DeviceImage | Sequence[numpy.ndarray], output: str = 'magnitude', border: str = 'replicate', variant: str = 'auto', ctx: Context | Sequence[Context] | None = None) -> numpy.ndarray | DeviceImage | tuple[numpy.ndarray | DeviceImage, numpy.ndarray | DeviceImage] | list[numpy.ndarray] | list[tuple[numpy.ndarray, numpy.ndarray]]:
    """
    Sobel edge detection on the grey image (colour becomes (77 R + 150 G + 29 B + 128) >> 8).

    output: 'magnitude' (default; round(sqrt(gx^2 + gy^2)) clamped to 255, uint8 H x W), 'l1' (min(255, |gx| + |gy|), uint8 H x W) or 'gradients' (a tuple (gx, gy) of int16 H x W).
    border: 'replicate' (default), 'reflect101', 'constant' or 'constant=V'.
    `img`: a uint8 array (H x W or H x W x C, C in 1 to 4; any layout) or a uint8 DeviceImage (colour is made grey on the device); uint16 is refused. `ctx` is the Context to run on (default: clfilters.default_context()); `variant` picks a variant as --variant does.
    `img` may also be a list or tuple of arrays, a batch: a list of results in input order. `ctx` may also be a list or tuple of Contexts (clfilters.contexts) that share the work: one array's bands, or a batch's images, handed out as each device finishes one. DeviceImages take neither.
    """

def edges(img: numpy.ndarray | DeviceImage, ctx: Context | None = None) -> numpy.ndarray | DeviceImage:
    """
    The edge map u(x-1,y) + u(x+1,y) + u(x,y-1) + u(x,y+1) - 4 u(x,y) (zero outside), float32 H x W.

    `img`: 1 channel of uint8, uint16, int16 or float32, or 8-bit colour (made grey), as an array or a DeviceImage (uint8 or float32; not uint16). `ctx` as for the other filters.
    """

def reconstruct(edges: numpy.ndarray | DeviceImage, iterations: int | None = None, tolerance: float | None = None, check_every: int = 48, initial: numpy.ndarray | DeviceImage | None = None, variant: str = 'auto', ctx: Context | None = None) -> numpy.ndarray | DeviceImage:
    """
    Rebuilds an image from its edge map by Jacobi iteration (reverse edge detection); float32 H x W.

    edges: float32 H x W (an array or a DeviceImage).
    iterations: the most iterations; None (default) means 1000, or 1000000 with a tolerance.
    tolerance: stop once the largest change of one iteration is <= tolerance (default None: run every iteration).
    check_every: with a tolerance, read the device's per-iteration maxima back every this many iterations (default 48).
    initial: the first iterate, of the edge map's size (default None: zeros); an array of any sample type (colour becomes grey) or a float32 DeviceImage.
    `variant` picks a variant as --variant does; `ctx` as for the other filters.
    """

def tune(filters: str | list[str] | None = None, size: tuple[int, int] = (1920, 1080), budget: float = 90.0, params: dict[str, object] | str | None = None, ctx: Context | None = None) -> list[dict[str, object]]:
    """
    Finds and remembers the fastest correct variant of each filter on the context's device, as `clfilters tune` does: every candidate is checked against the CPU reference before it is timed, and the winners go to the tuning database that variant='auto' reads.

    filters: a name ('box-blur') or a list of them; None (default) tunes every filter.
    size: (width, height) to tune at (default (1920, 1080)).
    budget: seconds for the whole search (default 90).
    params: one parameter set to tune instead of each class the benchmark covers, as a dict or 'diameter=63,channels=4'.
    Returns one dict per filter and parameter class: filter, param_class, variant, config, kernel_ms (None where no candidate was correct) and candidates.
    """
