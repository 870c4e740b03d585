// The single translation unit that holds the stb_image / stb_image_write implementations
// (headers from Debian's libstb-dev). Only the formats satlab documents are compiled in: GIF, PSD,
// PIC and PNM decoders are left out, which keeps them away from untrusted files, and so is JPEG, which
// goes through libjpeg-turbo instead (app/io/jpeg.cpp: stb's JPEG decoder overflows its Huffman tables
// on corrupt files).
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_FAILURE_USERMSG
#define STBI_NO_GIF
#define STBI_NO_PSD
#define STBI_NO_PIC
#define STBI_NO_PNM
#define STBI_NO_JPEG
#include <stb_image.h>
#include <stb_image_write.h>
