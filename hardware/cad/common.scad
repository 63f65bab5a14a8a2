// Shared dimensions of the printed parts (mm). Included by the models; renders nothing itself.
// The cubes, the tray and the camera's field of view fix everything else.

cube_size = 10;          // the game's wooden cubes
tray_cubes = 40;         // all of them must lie in one layer, none on top of another
tray_spread = 4;         // floor area per cube footprint: room to tumble apart and lie flat
tray_ratio = 1.4;        // long side / short side of the tray's floor (fits a 4:3-ish image)
tray_inner_d = ceil(sqrt(tray_cubes * cube_size * cube_size * tray_spread / tray_ratio));
tray_inner_w = ceil(tray_inner_d * tray_ratio);
tray_wall = 3;
tray_floor = 2.4;
tray_wall_h = 2.5 * cube_size;  // a bouncing cube stays in
tray_entry_w = 50;       // gap in the back wall where the tower's exit ramp ends

// Raspberry Pi Camera Module 3 (standard lens): field of view, board and holes.
camera_hfov = 66;
camera_vfov = 41;
camera_margin = 5;       // seen beyond the tray's inner walls on every side
camera_board = [25, 24];
camera_holes = [21, 12.5];  // M2 hole spacing
camera_hole_d = 2.2;
camera_lens_d = 8;
// Lens height above the tray floor so the whole floor plus the margin is in view.
view_w = tray_inner_w + 2 * camera_margin;
view_d = tray_inner_d + 2 * camera_margin;
camera_height = max((view_w / 2) / tan(camera_hfov / 2), (view_d / 2) / tan(camera_vfov / 2));

// WS2812 ring with 16 pixels, around the lens.
ring_od = 68;
ring_id = 44;
ring_t = 3.2;

// Tower: an inner channel wide enough for cubes to tumble without jamming.
tower_inner = 5 * cube_size;
tower_h = 200;
tower_wall = 3;
tower_exit_h = 3 * cube_size;
beam_d = 3.2;            // 3 mm IR emitter / receiver
beam_z = 0.6 * cube_size; // beam height above the exit floor: every cube breaks it

screw_m3 = 3.2;
pilot_m3 = 2.6;
$fn = 48;
