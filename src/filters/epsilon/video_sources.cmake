# Video I/O and the streaming pipeline of `clfilters epsilon`, included by this folder's CMakeLists.txt:
# sources compiled into the clfilters library, and extra tests linked into epsilon_cli_test.
set(EPSILON_VIDEO_SOURCES epsilon_video.cpp video_pipeline.cpp)
set(EPSILON_VIDEO_TESTS epsilon_video_test.cpp)
