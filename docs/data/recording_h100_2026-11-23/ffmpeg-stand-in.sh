#!/bin/bash
# a stand-in for ffmpeg on a machine without it: reads the frames and discards them (measures the
# program's side of recording: read-back, queue, writer thread, pipe)
for a; do last=$a; [ "$a" = "-encoders" ] && { echo " V....D libx264 stand-in"; exit 0; }; [ "$a" = "null" ] && exit 1; done
cat > /dev/null
echo stand-in > "$last"
